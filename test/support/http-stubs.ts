/**
 * HTTP stubs on a real node:http server, for in-process runs of the CLI (test/commands): the
 * run sends through the transport a user without a proxy variable takes (client/http-exchange.ts,
 * real sockets), and the server answers from a registry of stubs, as gh's httpmock registry
 * does. A stub is a method and a path (and, if given, the origin, headers and body it must
 * have) with its answer; it answers once unless told `times(n)` or `persist()`. Every stub must
 * have been used and every request must have matched one: `verify()` throws otherwise (runFake
 * calls it after each run). A request no stub matches is answered 599 with the reason, and
 * verify() names it. Every request received is kept (`requests`, `calls()`), to assert on what
 * was sent.
 *
 * Faults are real ones: `reset()` resets the connection, `hang()` never answers (the client's
 * time-out ends it); a refused connection is a closed port (`closedPort()`). `hold()` keeps
 * requests unanswered until the test releases them, counting them in flight.
 *
 * One server per test file (`STUB_SERVER`, at `STUB_ORIGIN`), answering from the stubs runFake
 * hands it for the run (`answerFrom`); `startStubServer()` starts another (a second origin, or
 * one a test stops and starts again: a server that goes away and comes back).
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll } from "vitest";

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  /** The path with its query string, as sent. */
  path: string;
  /** `http://` and the Host header: the origin the client addressed. */
  origin: string;
  /** By lower-case name; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** Decoded as UTF-8 (empty when there was none). */
  body: string;
}

/** What a stub answers. */
export interface StubAnswer {
  status: number;
  body?: string | undefined;
  headers?: Readonly<Record<string, string>> | undefined;
}

/** What a request must have, beyond method and path, for a stub to answer it. */
export interface StubMatch {
  /** The origin addressed (its Host header); `STUB_ORIGIN` unless given. */
  origin?: string;
  /** Headers that must be present with these values (names in lower case). */
  headers?: Readonly<Record<string, string | RegExp>>;
  body?: string | RegExp | ((body: string) => boolean);
}

/** The status of an answer to a request no stub matched (no real server sends it). */
export const UNMATCHED_STATUS = 599;

type Responder =
  | { kind: "answer"; answer: (request: RecordedRequest) => StubAnswer | Promise<StubAnswer> }
  | { kind: "reset" }
  | { kind: "hang"; then: ((request: RecordedRequest) => void) | undefined };

/** One registered stub; its methods say how it answers and how often. */
export class Stub {
  readonly method: string;
  readonly path: string | RegExp;
  readonly match: StubMatch;
  #responder: Responder | undefined;
  #times = 1;
  #persist = false;
  #used = 0;

  constructor(method: string, path: string | RegExp, match: StubMatch) {
    this.method = method;
    this.path = path;
    this.match = match;
  }

  /** Answers `status` with `body` (and headers), or what `answer` makes of the request. */
  reply(
    status: number,
    body?: string,
    options?: { headers?: Readonly<Record<string, string>> },
  ): this;
  reply(answer: (request: RecordedRequest) => StubAnswer | Promise<StubAnswer>): this;
  reply(
    statusOrAnswer: number | ((request: RecordedRequest) => StubAnswer | Promise<StubAnswer>),
    body = "",
    options: { headers?: Readonly<Record<string, string>> } = {},
  ): this {
    this.#responder =
      typeof statusOrAnswer === "function"
        ? { kind: "answer", answer: statusOrAnswer }
        : {
            kind: "answer",
            answer: () => ({ status: statusOrAnswer, body, headers: options.headers }),
          };
    return this;
  }

  /** Reads the request, then resets the connection (a TCP RST): the client sees ECONNRESET. */
  reset(): this {
    this.#responder = { kind: "reset" };
    return this;
  }

  /**
   * Reads the request and never answers: the client gives up after its time-out (or is
   * interrupted: `then` runs when the request has come, to deliver a signal, say).
   */
  hang(then?: (request: RecordedRequest) => void): this {
    this.#responder = { kind: "hang", then };
    return this;
  }

  /** Answers `count` requests (each must come). */
  times(count: number): this {
    this.#times = count;
    return this;
  }

  /** Answers every request that matches (at least one must come). */
  persist(): this {
    this.#persist = true;
    return this;
  }

  /** What a test reads in a failure: `GET /v1/inventory (used 0 of 1)`. */
  describe(): string {
    const wanted = this.#persist ? "at least 1" : String(this.#times);
    return `${this.method} ${String(this.path)} (used ${this.#used} of ${wanted})`;
  }

  /** @internal Whether this stub answers `request` now. */
  matches(request: RecordedRequest): boolean {
    if (!this.#persist && this.#used >= this.#times) return false;
    if (request.method !== this.method) return false;
    if (request.origin !== (this.match.origin ?? STUB_ORIGIN)) return false;
    const path = this.path;
    if (typeof path === "string" ? request.path !== path : !path.test(request.path)) return false;
    for (const [name, wanted] of Object.entries(this.match.headers ?? {})) {
      const value = request.headers[name];
      if (value === undefined) return false;
      if (typeof wanted === "string" ? value !== wanted : !wanted.test(value)) return false;
    }
    const body = this.match.body;
    if (body === undefined) return true;
    if (typeof body === "string") return request.body === body;
    return typeof body === "function" ? body(request.body) : body.test(request.body);
  }

  /** @internal Takes one use of this stub and says how it answers. */
  take(): Responder {
    this.#used += 1;
    if (this.#responder === undefined) {
      throw new Error(`the stub ${this.describe()} says neither reply(), reset() nor hang()`);
    }
    return this.#responder;
  }

  /** @internal Whether it was used as often as it must be. */
  done(): boolean {
    return this.#persist ? this.#used > 0 : this.#used >= this.#times;
  }
}

/** Requests of one method kept unanswered until released (see HttpStubs.hold). */
export interface HeldRequests {
  /** Requests of the method received so far. */
  dispatched(): number;
  /** The most that were in flight at once (received, their answer not yet sent). */
  mostInFlight(): number;
  /** Answers every request held now. */
  release(): void;
}

/**
 * How long, and how many turns of the event loop, without a new request end a burst (the
 * default release of held requests). The turns are what count: a request the client has sent
 * is read within a few, however late the process runs; the time only spares a busy loop.
 */
const BURST_QUIET_MS = 10;
const BURST_QUIET_TURNS = 5;

/** A registry of stubs, and the requests it was sent. */
export class HttpStubs {
  readonly #stubs: Stub[] = [];
  readonly #holds = new Map<string, (proceed: () => void, settled: Promise<void>) => void>();
  /** Every request received, in the order each arrived whole. */
  readonly requests: RecordedRequest[] = [];
  /** The requests no stub matched (answered 599). */
  readonly unmatched: RecordedRequest[] = [];
  /** The answers that threw (answered 599): a stub's own check of what it was sent. */
  readonly #failures: string[] = [];

  /** A stub for `method` `path` (a string is the whole path with its query; a RegExp tests it). */
  on(method: string, path: string | RegExp, match: StubMatch = {}): Stub {
    const stub = new Stub(method, path, match);
    this.#stubs.push(stub);
    return stub;
  }

  /** The requests received, as "METHOD path". */
  calls(): string[] {
    return this.requests.map((request) => `${request.method} ${request.path}`);
  }

  /**
   * Holds each request of `method` as it arrives, before any stub answers it, until `release()`.
   * `onHeld(count, held)` runs after each is held, with how many are held now; by default the
   * held requests are released once no other has come for a moment (a burst is over), so all
   * the client may send at once are in flight together.
   */
  hold(
    method = "PATCH",
    onHeld: (count: number, held: HeldRequests) => void = releaseAfterBurst(),
  ): HeldRequests {
    const queue: (() => void)[] = [];
    let dispatched = 0;
    let inFlight = 0;
    let most = 0;
    const held: HeldRequests = {
      dispatched: () => dispatched,
      mostInFlight: () => most,
      release: () => {
        for (const proceed of queue.splice(0)) proceed();
      },
    };
    this.#holds.set(method, (proceed, settled) => {
      dispatched += 1;
      inFlight += 1;
      most = Math.max(most, inFlight);
      void settled.then(() => (inFlight -= 1));
      queue.push(proceed);
      onHeld(queue.length, held);
    });
    return held;
  }

  /** Throws when a stub was not used as often as it must be, or a request matched no stub. */
  verify(): void {
    const unused = this.#stubs.filter((stub) => !stub.done());
    const problems = [
      ...unused.map((stub) => `a stub was not used: ${stub.describe()}`),
      ...this.unmatched.map(
        (request) =>
          `a request matched no stub: ${request.method} ${request.origin}${request.path}`,
      ),
      ...this.#failures,
    ];
    if (problems.length > 0) throw new Error(`HTTP stubs:\n  ${problems.join("\n  ")}`);
  }

  /** @internal Answers one request the server received whole. */
  async serve(request: RecordedRequest, response: ServerResponse): Promise<void> {
    this.requests.push(request);
    const settled = new Promise<void>((resolve) => response.once("close", resolve));
    const hold = this.#holds.get(request.method);
    if (hold !== undefined) {
      await new Promise<void>((proceed) => {
        hold(proceed, settled);
      });
      if (response.destroyed) return;
    }
    const stub = this.#stubs.find((candidate) => candidate.matches(request));
    if (stub === undefined) {
      this.unmatched.push(request);
      const registered = this.#stubs.map((candidate) => candidate.describe()).join("; ");
      send(response, {
        status: UNMATCHED_STATUS,
        body: `no stub matches ${request.method} ${request.origin}${request.path} (stubs: ${registered || "none"})`,
        headers: { "content-type": "text/plain" },
      });
      return;
    }
    const responder = stub.take();
    switch (responder.kind) {
      case "reset":
        response.socket?.resetAndDestroy();
        return;
      case "hang":
        responder.then?.(request);
        return;
      case "answer":
        try {
          send(response, await responder.answer(request));
        } catch (error) {
          const problem = `the answer to ${request.method} ${request.path} failed: ${String(error)}`;
          this.#failures.push(problem);
          send(response, { status: UNMATCHED_STATUS, body: problem });
        }
    }
  }
}

/** The default of hold(): release what is held once no request has come for a moment. */
function releaseAfterBurst(): (count: number, held: HeldRequests) => void {
  let arrivals = 0;
  return (_count, held) => {
    const seen = (arrivals += 1);
    const quiet = (turns: number): void => {
      if (arrivals !== seen) return;
      if (turns === 0) held.release();
      else setImmediate(quiet, turns - 1);
    };
    setTimeout(quiet, BURST_QUIET_MS, BURST_QUIET_TURNS);
  };
}

function send(response: ServerResponse, answer: StubAnswer): void {
  if (response.destroyed) return;
  response.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers ?? {})) response.setHeader(name, value);
  // With the whole body at once, node:http sends a Content-Length, as the bundled server does.
  response.end(answer.body ?? "");
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    request.on("error", reject);
  });
}

function recorded(request: IncomingMessage, body: string): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return {
    method: request.method ?? "",
    path: request.url ?? "",
    origin: `http://${headers.host ?? ""}`,
    headers,
    body,
  };
}

/** The stubs every stub server answers from now (runFake sets them for its run). */
let current: HttpStubs | undefined;

/** Has every stub server answer from `stubs` (undefined: from none, every request 599). */
export function answerFrom(stubs: HttpStubs | undefined): void {
  current = stubs;
}

/** A stub server: a node:http server on 127.0.0.1, on a port of its own. */
export interface StubServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  /** Stops listening and drops every connection: connecting is refused from now on. */
  stop: () => Promise<void>;
  /** Listens again on the same port after stop(). */
  listenAgain: () => Promise<void>;
  /** Stops it for good. */
  close: () => Promise<void>;
}

async function listenOn(server: Server, port: number): Promise<number> {
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  // Never what keeps a test process up.
  server.unref();
  return (server.address() as AddressInfo).port;
}

/** Starts a stub server (the caller closes it: `close()`, in an afterAll). */
export async function startStubServer(): Promise<StubServer> {
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const received = recorded(request, body);
      if (current === undefined) {
        send(response, {
          status: UNMATCHED_STATUS,
          body: `no stubs are in use (a request outside a run): ${received.method} ${received.path}`,
        });
        return;
      }
      await current.serve(received, response);
    })().catch((error: unknown) => {
      // The request could not be read whole (the client went away): nothing to answer but this.
      send(response, { status: UNMATCHED_STATUS, body: `the stub failed: ${String(error)}` });
    });
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  const port = await listenOn(server, 0);
  const stop = async (): Promise<void> => {
    if (!server.listening) return;
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  };
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    stop,
    listenAgain: async () => {
      await listenOn(server, port);
    },
    close: stop,
  };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then closed): connecting is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** This test file's stub server, closed after the file; runFake's PETSTORE_BASE_URL points at it. */
export const STUB_SERVER = await startStubServer();
export const STUB_ORIGIN = STUB_SERVER.origin;
afterAll(STUB_SERVER.close);
