/**
 * The server behind two Prism proxies, as server-proxy.test.ts describes them, and the calls
 * its cases make through them: started once per test file, shared by the case files it
 * registers (batch-proxy-cases.ts, feed-proxy-cases.ts), which record the statuses they covered in `covered`.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { assertBuilt } from "../e2e/support/binary.js";
import { API_KEY, startServer, type RunningServer } from "../e2e/support/servers.js";
import { tempDir } from "../support/temp-dir.js";
import { DOCUMENT, startPrism, stopAllPrisms, type PrismProcess } from "./prism.js";

interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

export interface Exchange {
  status: number;
  headers: Headers;
  body: unknown;
  /** What Prism's `sl-violations` header lists. */
  violations: Violation[];
}

/** "response.body.0.petId: Response body property 0.petId must be >= 1", readable in a diff. */
export const describeViolations = (violations: readonly Violation[]) =>
  violations.map((v) => `${v.location.join(".")}: ${v.message}`);

export interface Call {
  method?: "GET" | "PATCH" | "POST" | "PUT" | "DELETE";
  path: string;
  /** The API key to send; null sends no Authorization header. */
  key?: string | null;
  /** A request body, sent as application/json (unless `headers` says otherwise). */
  body?: string;
  /** More request headers (If-Match, Idempotency-Key). */
  headers?: Record<string, string>;
}

/** A key of scope `read`, accepted beside API_KEY through a keys file. */
export const READ_KEY = "conformance-read-key-5d1e";

/** The running server, its proxies, the demo pets' ids and one that no pet has. */
export interface ProxySuite {
  server: RunningServer;
  /** `prism proxy --errors`: answers a response that breaks the document with its own 500. */
  strict: PrismProcess;
  /** `prism proxy`: forwards anything and lists what it found in `sl-violations`. */
  observing: PrismProcess;
  petIds: number[];
  unknownId: number;
}

const temp = tempDir("petstore-conformance-");
let current: ProxySuite | undefined;

/** "operationId status" of every exchange that conformed. */
export const covered = new Set<string>();

/** The suite startProxySuite() started. */
export function proxySuite(): ProxySuite {
  if (!current) throw new Error("the proxy suite did not start");
  return current;
}

/** Starts the server (demo data, a read key beside API_KEY) and the two proxies. */
export async function startProxySuite(): Promise<ProxySuite> {
  assertBuilt();
  const keysFile = join(temp.dir, "keys.txt");
  const readDigest = createHash("sha256").update(READ_KEY).digest("hex");
  writeFileSync(keysFile, `reader read sha256:${readDigest}\n`);
  const server = await startServer({
    dbPath: join(temp.dir, "petstore.db"),
    args: ["--demo", "--api-keys-file", keysFile],
    // A write waits this long for a lock held elsewhere before its 503 (see the 503 cases).
    env: { PETSTORE_LOCK_TIMEOUT_MS: "300" },
  });
  const [strict, observing] = await Promise.all([
    startPrism(["proxy", DOCUMENT, server.url, "--errors"]),
    startPrism(["proxy", DOCUMENT, server.url]),
  ]);
  const inventory = (await (
    await fetch(`${server.url}/inventory`, { headers: { authorization: `Bearer ${API_KEY}` } })
  ).json()) as { petId: number }[];
  const petIds = inventory.map((entry) => entry.petId);
  current = { server, strict, observing, petIds, unknownId: Math.max(...petIds) + 1000 };
  return current;
}

/** Stops the proxies and the server, and removes the database. */
export async function stopProxySuite(): Promise<void> {
  await stopAllPrisms();
  await current?.server.stop();
  temp.remove();
}

export async function send(prism: PrismProcess, call: Call): Promise<Exchange> {
  const headers: Record<string, string> = {};
  const key = call.key === undefined ? API_KEY : call.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (call.body !== undefined) headers["content-type"] = "application/json";
  Object.assign(headers, call.headers);
  const response = await fetch(`${prism.url}${call.path}`, {
    method: call.method ?? "GET",
    headers,
    ...(call.body === undefined ? {} : { body: call.body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === "" ? undefined : JSON.parse(text),
    violations: JSON.parse(response.headers.get("sl-violations") ?? "[]") as Violation[],
  };
}

/** Checks that the answer is the server's own, with `status`, and records the coverage. */
export function expectServerAnswer(operationId: string, exchange: Exchange, status: number): void {
  // A batch's answer can be megabytes long: its start says enough.
  const context = `${operationId} ${status}: ${JSON.stringify(exchange.body ?? null).slice(0, 1000)}`;
  expect(exchange.status, context).toBe(status);
  // The server sends x-request-id on every answer; Prism's own answers have none.
  expect(exchange.headers.get("x-request-id"), context).toMatch(/^[0-9a-f-]{36}$/);
  expect(exchange.headers.get("content-type"), context).toMatch(/^application\/json/);
  if (status >= 400) expect(exchange.body, context).toMatchObject({ status });
  covered.add(`${operationId} ${status}`);
}

/** Sends a request the document allows through the strict proxy; Prism must find nothing. */
export async function conforming(
  operationId: string,
  call: Call,
  status: number,
): Promise<Exchange> {
  const exchange = await send(proxySuite().strict, call);
  expect(describeViolations(exchange.violations), `${operationId} ${call.path}`).toEqual([]);
  expectServerAnswer(operationId, exchange, status);
  return exchange;
}

/** Sends a request the document forbids through the observing proxy. */
export async function forbidden(
  operationId: string,
  call: Call,
  status: number,
): Promise<Exchange> {
  const exchange = await send(proxySuite().observing, call);
  const where = (side: string) =>
    describeViolations(exchange.violations.filter((v) => v.location[0] === side));
  expect(where("response"), `${operationId} ${call.path}`).toEqual([]);
  expect(where("request").length, `Prism accepted ${call.path} ${call.body ?? ""}`).toBeGreaterThan(
    0,
  );
  expectServerAnswer(operationId, exchange, status);
  return exchange;
}
