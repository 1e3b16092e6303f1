// Reference servers the benchmark measures ours against, started as a child
// process: `node bench/reference-server.js static <body-file>` sends the same
// pre-serialized inventory bytes on every request (the ceiling of a Node
// server); `node bench/reference-server.js sqlite <db-file>` is a minimal
// node:http + better-sqlite3 PATCH handler at our durability (WAL,
// synchronous=FULL) doing the same work per request: bearer check, JSON body,
// validation, UPDATE ... RETURNING, JSON answer.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import Database from "better-sqlite3";

const [mode, file] = process.argv.slice(2);
const KEY = "Bearer bench-key";

function listen(server) {
  server.keepAliveTimeout = 10_000;
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/v1\n`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

if (mode === "static") {
  const body = readFileSync(file);
  listen(
    createServer((request, response) => {
      response.writeHead(200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": body.length,
      });
      response.end(body);
    }),
  );
} else if (mode === "sqlite") {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.defaultSafeIntegers(true);
  const update = db.prepare(
    "UPDATE pets SET quantity = ? WHERE id = ? RETURNING id, quantity, status",
  );
  const send = (response, status, text) => {
    response.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    response.end(text);
  };
  listen(
    createServer((request, response) => {
      const match = /^\/v1\/inventory\/([1-9][0-9]{0,18})$/.exec(request.url ?? "");
      if (request.method !== "PATCH" || !match) return send(response, 404, '{"status":404}');
      if (request.headers.authorization !== KEY) return send(response, 401, '{"status":401}');
      const chunks = [];
      request.on("data", (chunk) => chunks.push(chunk));
      request.on("end", () => {
        let quantity;
        try {
          quantity = JSON.parse(Buffer.concat(chunks).toString()).quantity;
        } catch {
          return send(response, 400, '{"status":400}');
        }
        if (!Number.isInteger(quantity) || quantity < 0)
          return send(response, 400, '{"status":400}');
        // all(): stepping to completion lets checkpoints recycle the WAL (as our store does).
        const [row] = update.all(BigInt(quantity), BigInt(match[1]));
        if (!row) return send(response, 404, '{"status":404}');
        send(
          response,
          200,
          `{"petId":${row.id},"quantity":${row.quantity},"status":${JSON.stringify(row.status)}}`,
        );
      });
    }),
  );
} else {
  process.stderr.write("usage: reference-server.js static <body-file> | sqlite <db-file>\n");
  process.exit(2);
}
