/**
 * Bodies over the 16 KiB limit, uploaded concurrently to the real server over real HTTP: each
 * client sees the 413 with the Error body, never a connection reset. The server used to answer
 * before reading the body and close at once; a client still writing (most write their whole
 * body before reading) then met a reset (EPIPE/ECONNRESET) instead of the answer.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

const BODY_BYTES = 64 * 1024;
const PARALLEL = 20;
const ROUNDS = 5;
const EXPECTED_ERROR = {
  code: "payload_too_large",
  message: "Request body is too large",
  status: 413,
};

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    seed: [{ petId: 1, name: "Rex", status: "available", quantity: 3 }],
  });
});
afterAll(async () => {
  await server.stop();
});

interface Outcome {
  status: number | string;
  contentType?: string | undefined;
  body?: string;
}

/**
 * PATCHes a 64 KiB body with node:http, written in 8 KiB pieces before reading the answer (as
 * most clients do); `chunked` sends it without a Content-Length. Resolves with the status and
 * body, or with the error code in place of the status when the connection failed.
 */
function upload(chunked: boolean): Promise<Outcome> {
  const url = new URL(`${server.url}/inventory/1`);
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "PATCH",
        agent: false,
        headers: {
          authorization: `Bearer ${API_KEY}`,
          "content-type": "application/json",
          ...(chunked ? {} : { "content-length": String(BODY_BYTES) }),
        },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => {
          resolve({
            status: response.statusCode ?? 0,
            contentType: response.headers["content-type"],
            body,
          });
        });
        response.on("error", (error: NodeJS.ErrnoException) => {
          resolve({ status: error.code ?? error.message });
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      resolve({ status: error.code ?? error.message });
    });
    const piece = Buffer.alloc(8 * 1024, " ");
    let sent = 0;
    const write = () => {
      while (sent < BODY_BYTES) {
        sent += piece.length;
        if (!req.write(piece)) {
          req.once("drain", write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

function expectAll413(outcomes: readonly Outcome[]) {
  expect(outcomes.filter((outcome) => outcome.status !== 413)).toEqual([]);
  for (const outcome of outcomes) {
    expect(outcome.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(outcome.body ?? "")).toEqual(EXPECTED_ERROR);
  }
}

describe("uploads over the body limit, concurrently", () => {
  it.each([
    ["with a Content-Length (refused before reading)", false],
    ["chunked (refused once 16 KiB have arrived)", true],
  ])("each get 413 with the Error body, none a reset: %s", async (_what, chunked) => {
    for (let round = 0; round < ROUNDS; round++) {
      const outcomes = await Promise.all(Array.from({ length: PARALLEL }, () => upload(chunked)));
      expectAll413(outcomes);
    }
  });

  it("each get 413 through fetch (undici) too", async () => {
    const body = JSON.stringify({ quantity: 1, pad: "x".repeat(BODY_BYTES) });
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        fetch(`${server.url}/inventory/1`, {
          method: "PATCH",
          headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
          body,
        }),
      ),
    );
    expectAll413(
      await Promise.all(
        responses.map(async (response) => ({
          status: response.status,
          contentType: response.headers.get("content-type") ?? undefined,
          body: await response.text(),
        })),
      ),
    );
  });

  it("leaves the server serving, and the entry unchanged", async () => {
    const response = await fetch(`${server.url}/inventory`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(await response.json()).toEqual([{ petId: 1, quantity: 3, status: "available" }]);
  });
});
