// Reference servers the benchmark measures ours against, started as a child
// process: `node bench/reference-server.js static <body-file>` sends the same
// pre-serialized inventory bytes on every request (the ceiling of a Node
// server); `node bench/reference-server.js sqlite <db-file>` is a minimal
// node:http + better-sqlite3 PATCH handler at our durability (WAL,
// synchronous=FULL) doing the same work per request: bearer check, JSON body,
// validation, UPDATE ... RETURNING, JSON answer; `node bench/reference-server.js
// postgres` does the same on PostgreSQL (the URL in PETSTORE_DATABASE_URL, as
// ours takes it) through a pg pool of our default size, one autocommitted
// UPDATE ... RETURNING per request at our durability (synchronous_commit on);
// `node bench/reference-server.js postgres-history` also does the writes the spec asks of
// a PATCH, as ours makes them: the pet locked, its history record written with the next seq
// from the revision row (the feed's order: commit order, so the row stays locked until the
// commit), one autocommitted statement per request; `node bench/reference-server.js
// postgres-fresh-get` answers GET /v1/inventory as fresh as ours must (every write any
// instance acknowledged before the GET arrived is in it): a read of the revision per GET, the
// pets read again and the body made again only when it moved.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import Database from "better-sqlite3";
import pg from "pg";

const [mode, file] = process.argv.slice(2);
const KEY = "Bearer bench-key";

function listen(server) {
  server.keepAliveTimeout = 10_000;
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/v1\n`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

/**
 * The same minimal PATCH handling for every store: bearer check, JSON body, validation, then
 * `write(petId, quantity)` giving the updated row (undefined: no such pet), or a promise of it
 * (a rejection: 503). A synchronous store answers without a promise, as a minimal handler would.
 */
function patchServer(write) {
  const send = (response, status, text) => {
    response.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    response.end(text);
  };
  return createServer((request, response) => {
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
      if (!Number.isInteger(quantity) || quantity < 0) return send(response, 400, '{"status":400}');
      const answer = (row) => {
        if (!row) return send(response, 404, '{"status":404}');
        send(
          response,
          200,
          `{"petId":${row.id},"quantity":${row.quantity},"status":${JSON.stringify(row.status)}}`,
        );
      };
      const written = write(match[1], quantity);
      if (written instanceof Promise) {
        written.then(answer, () => send(response, 503, '{"status":503}'));
      } else {
        answer(written);
      }
    });
  });
}

/** A pg pool of our default size on PETSTORE_DATABASE_URL, at our durability. */
function postgresPool() {
  return new pg.Pool({
    connectionString: process.env.PETSTORE_DATABASE_URL,
    max: 10,
    options: "-c synchronous_commit=on",
  });
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
  // all(): stepping to completion lets checkpoints recycle the WAL (as our store does).
  listen(patchServer((petId, quantity) => update.all(BigInt(quantity), BigInt(petId))[0]));
} else if (mode === "postgres") {
  const pool = postgresPool();
  const update = {
    name: "update",
    text: "UPDATE pets SET quantity = $1 WHERE id = $2 RETURNING id, quantity, status",
  };
  // int8 arrives as a decimal string: written as it is, exact.
  listen(
    patchServer(async (petId, quantity) => {
      const { rows } = await pool.query({ ...update, values: [quantity, petId] });
      return rows[0];
    }),
  );
} else if (mode === "postgres-history") {
  const pool = postgresPool();
  // Locks in our order (the pet, then the revision row): each CTE waits for the one it reads.
  const update = {
    name: "update",
    text: `WITH pet AS (
        SELECT id, quantity FROM pets WHERE id = $2 FOR NO KEY UPDATE
      ), written AS (
        UPDATE pets SET quantity = $1 FROM pet WHERE pets.id = pet.id
          RETURNING pets.id, pets.quantity, pets.status, pet.quantity AS previous
      ), revised AS (
        UPDATE inventory_revision SET revision = revision + 1
          WHERE id = 1 AND EXISTS (SELECT FROM written) RETURNING revision
      ), recorded AS (
        INSERT INTO inventory_changes (pet_id, at, previous, quantity, key_name, request_id, seq)
          SELECT written.id, $3, written.previous, written.quantity, 'bench', $4, revised.revision
            FROM written, revised
          RETURNING seq
      )
      SELECT written.id, written.quantity, written.status, recorded.seq FROM written, recorded`,
  };
  listen(
    patchServer(async (petId, quantity) => {
      const values = [quantity, petId, Date.now(), randomUUID()];
      const { rows } = await pool.query({ ...update, values });
      return rows[0];
    }),
  );
} else if (mode === "postgres-fresh-get") {
  const pool = postgresPool();
  let cached = { revision: undefined, body: Buffer.alloc(0) };
  const revision = {
    name: "revision",
    text: "SELECT revision FROM inventory_revision WHERE id = 1",
  };
  const pets = { name: "pets", text: "SELECT id, quantity, status FROM pets ORDER BY id" };
  const fresh = async () => {
    const [{ revision: now }] = (await pool.query(revision)).rows;
    if (now !== cached.revision) {
      const { rows } = await pool.query(pets);
      // int8 arrives as a decimal string: written as it is, exact.
      const text = `[${rows.map((row) => `{"petId":${row.id},"quantity":${row.quantity},"status":${JSON.stringify(row.status)}}`).join(",")}]`;
      cached = { revision: now, body: Buffer.from(text) };
    }
    return cached.body;
  };
  listen(
    createServer((request, response) => {
      const send = (status, body) => {
        response.writeHead(status, {
          "content-type": "application/json; charset=utf-8",
          "content-length": body.length,
        });
        response.end(body);
      };
      if (request.method !== "GET" || request.url !== "/v1/inventory") {
        return send(404, '{"status":404}');
      }
      if (request.headers.authorization !== KEY) return send(401, '{"status":401}');
      fresh().then(
        (body) => send(200, body),
        () => send(503, '{"status":503}'),
      );
    }),
  );
} else {
  process.stderr.write(
    "usage: reference-server.js static <body-file> | sqlite <db-file> | postgres | postgres-history | postgres-fresh-get (PETSTORE_DATABASE_URL)\n",
  );
  process.exit(2);
}
