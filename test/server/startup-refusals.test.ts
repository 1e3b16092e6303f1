/**
 * What `petstore serve` (openStore) and `db copy` (copyStore) say when PostgreSQL's address
 * refuses them, through pg on real sockets, no PostgreSQL needed: an HTTP server at the port, a
 * port nothing listens at, and a stand-in for PgBouncer that answers as PgBouncer 1.18 does (its
 * ErrorResponse, SQLSTATE 08P01, FATAL, then the connection closed), at start-up or at the first
 * statement (a transaction-mode pool hands out a server connection only then).
 */
import { once } from "node:events";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OperatorError } from "../../src/api/operator-error.js";
import { openStore } from "../../src/server/store-choice.js";
import { copyStore } from "../../src/server/store/copy/copy-store.js";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import { tempDir } from "../support/temp-dir.js";

const PASSWORD = "hunter2-very-secret";

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

/** Listens on 127.0.0.1 at a free port; closed (its connections too) after the test. */
async function listen(server: net.Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const sockets = new Set<net.Socket>();
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, "close");
  });
  return (server.address() as AddressInfo).port;
}

/** A backend message: its type, its length (itself included), its body. */
function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

/** PgBouncer's refusal: ErrorResponse S FATAL, C 08P01, M `text` (proto.c send_pooler_error). */
function pgBouncerError(text: string): Buffer {
  const field = (code: string, value: string) => Buffer.from(`${code}${value}\0`);
  return message(
    "E",
    Buffer.concat([field("S", "FATAL"), field("C", "08P01"), field("M", text), Buffer.from([0])]),
  );
}

/** AuthenticationOk and ReadyForQuery (idle): a session open, as a pooler gives one. */
const SESSION_OPEN = Buffer.concat([
  message("R", Buffer.from([0, 0, 0, 0])),
  message("Z", Buffer.from("I")),
]);

/**
 * A stand-in for PgBouncer that refuses with `text`: at once after the startup packet, or once
 * the session is open and the first statement arrives.
 */
async function pgBouncer(text: string, when: "startup" | "first statement"): Promise<number> {
  const server = net.createServer((socket) => {
    socket.on("error", () => undefined);
    socket.once("data", () => {
      if (when === "startup") {
        socket.end(pgBouncerError(text));
        return;
      }
      socket.write(SESSION_OPEN);
      socket.once("data", () => socket.end(pgBouncerError(text)));
    });
  });
  return listen(server);
}

/** An HTTP server: it answers the startup packet with a 400 and closes. */
async function httpServer(): Promise<number> {
  return listen(http.createServer((_request, response) => response.end("hello")));
}

/** A port nothing listens at: one that was free a moment ago. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

const urlAt = (port: number, database = "inventory") =>
  `postgres://petstore:${PASSWORD}@127.0.0.1:${port}/${database}`;

/** The OperatorError `action` rejects with. */
async function refusal(action: () => Promise<unknown>): Promise<OperatorError> {
  const error = await action().then(
    () => new Error("no OperatorError thrown"),
    (caught: unknown) => caught,
  );
  if (error instanceof OperatorError) return error;
  throw error;
}

const serve = (url: string) => () =>
  openStore(
    { kind: "postgres", url, name: "(unused)", poolSize: 2 },
    { lockTimeoutMs: 1000, onConnectionError: () => undefined },
  );

/** A SQLite store to copy from: an empty one, migrated. */
async function sqliteSource(): Promise<string> {
  const temp = tempDir();
  closers.push(async () => {
    temp.remove();
  });
  const path = join(temp.dir, "petstore.db");
  await openSqliteStore(path).close();
  return path;
}

const copy = (url: string) => async () => copyStore({ from: await sqliteSource(), url });

/** Its failure, message and hint; and that the password shows in neither. */
function described(error: OperatorError) {
  expect(`${error.message}\n${error.hint ?? ""}`).not.toContain(PASSWORD);
  return { failure: error.failure, message: error.message, hint: error.hint };
}

describe("petstore serve's start on PostgreSQL (openStore), refused", () => {
  it("by an HTTP server at the port: configuration, the host and port to check", async () => {
    const port = await httpServer();
    expect(described(await refusal(serve(urlAt(port))))).toEqual({
      failure: "configuration",
      message: `cannot use PostgreSQL database inventory on 127.0.0.1:${port}: Connection terminated unexpectedly`,
      hint: `127.0.0.1:${port} accepted the connection but did not answer as PostgreSQL: check the host and port in PETSTORE_DATABASE_URL (those of PostgreSQL or of its pooler)`,
    });
  });

  it("by a port nothing listens at: unavailable, is PostgreSQL or its pooler listening there", async () => {
    const port = await closedPort();
    expect(described(await refusal(serve(urlAt(port))))).toEqual({
      failure: "unavailable",
      message: `cannot use PostgreSQL database inventory on 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
      hint: `nothing listens at 127.0.0.1:${port}: check that PostgreSQL (or its pooler) is running there, and the host and port in PETSTORE_DATABASE_URL`,
    });
  });

  it("by PgBouncer refusing a startup parameter: configuration, naming it and ignore_startup_parameters", async () => {
    const port = await pgBouncer("unsupported startup parameter: options", "startup");
    expect(described(await refusal(serve(`${urlAt(port)}?options=-c%20search_path%3Dx`)))).toEqual({
      failure: "configuration",
      message: `cannot use PostgreSQL database inventory on 127.0.0.1:${port}: unsupported startup parameter: options (08P01)`,
      hint: `the pooler at 127.0.0.1:${port} (PgBouncer) does not accept the startup parameter options: remove it from PETSTORE_DATABASE_URL (or PGOPTIONS), or list it in ignore_startup_parameters in pgbouncer.ini (which drops it)`,
    });
  });

  it("by PgBouncer refusing the password or the database: configuration", async () => {
    const password = await pgBouncer("SASL authentication failed", "startup");
    expect(described(await refusal(serve(urlAt(password))))).toMatchObject({
      failure: "configuration",
      hint: `the pooler at 127.0.0.1:${password} (PgBouncer) refused user petstore with that password: check the user and password in PETSTORE_DATABASE_URL (or in PGPASSWORD or ~/.pgpass, when the URL has none)`,
    });
    const database = await pgBouncer("no such database: inventory", "startup");
    expect(described(await refusal(serve(urlAt(database))))).toMatchObject({
      failure: "configuration",
      message: `cannot use PostgreSQL database inventory on 127.0.0.1:${database}: no such database: inventory (08P01)`,
    });
  });

  it("by PgBouncer out of client slots: unavailable, the pooler answered", async () => {
    const port = await pgBouncer("no more connections allowed (max_client_conn)", "startup");
    expect(described(await refusal(serve(urlAt(port))))).toEqual({
      failure: "unavailable",
      message: `cannot use PostgreSQL database inventory on 127.0.0.1:${port}: no more connections allowed (max_client_conn) (08P01)`,
      hint: `the pooler at 127.0.0.1:${port} (PgBouncer) answered but takes no more clients (max_client_conn): try again when others disconnect, or raise its max_client_conn`,
    });
  });
});

describe("db copy's connection to PostgreSQL (copyStore), refused", () => {
  it("by an HTTP server at the port: configuration", async () => {
    const port = await httpServer();
    expect(described(await refusal(copy(urlAt(port))))).toMatchObject({
      failure: "configuration",
      hint: `127.0.0.1:${port} accepted the connection but did not answer as PostgreSQL: check the host and port in PETSTORE_DATABASE_URL (those of PostgreSQL or of its pooler)`,
    });
  });

  it("by a port nothing listens at: unavailable", async () => {
    const port = await closedPort();
    expect(described(await refusal(copy(urlAt(port))))).toMatchObject({
      failure: "unavailable",
      hint: `nothing listens at 127.0.0.1:${port}: check that PostgreSQL (or its pooler) is running there, and the host and port in PETSTORE_DATABASE_URL`,
    });
  });

  it("by PgBouncer without a server connection at the first statement: unavailable, nothing copied", async () => {
    const port = await pgBouncer(
      "server login has been failing, try again later (server_login_retry)",
      "first statement",
    );
    expect(described(await refusal(copy(urlAt(port))))).toEqual({
      failure: "unavailable",
      message: `cannot use PostgreSQL database inventory on 127.0.0.1:${port}: server login has been failing, try again later (server_login_retry) (08P01)`,
      hint: `the pooler at 127.0.0.1:${port} (PgBouncer) answered but could not give a server connection: check that PostgreSQL behind it is up and lets the pooler log in (the pooler's log says why), then try again`,
    });
  });
});
