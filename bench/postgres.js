// The PostgreSQL rows of `npm run bench` (BENCH_ONLY=postgres runs them alone):
// our server on PostgreSQL against the same references as on SQLite, on a
// cluster the benchmark starts itself (bench/postgres-cluster.js). PostgreSQL
// runs on a core other than the servers' (with the load generator, on a machine
// of two cores), as a database server runs on a machine or cores of its own.
import { readdirSync, readFileSync } from "node:fs";
import { hasPgBouncer, startBenchPgBouncer } from "./pgbouncer.js";
import { startBenchCluster } from "./postgres-cluster.js";

/**
 * CPU time (user + system, reaped children's included) of the cluster whose postmaster is
 * `postmaster`, so far, in milliseconds: the postmaster and every process it forked (backends,
 * WAL writer, checkpointer, autovacuum), and no other PostgreSQL the machine runs.
 */
function postgresCpuMs(postmaster) {
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(pid)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile
    }
    const fields = stat.split(") ")[1].split(" ");
    if (Number(pid) !== postmaster && Number(fields[1]) !== postmaster) continue;
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return (ticks * 1000) / 100; // clock ticks of 10 ms
}

/**
 * `load` with PostgreSQL's CPU per request beside the server's: what a request costs the
 * database, which shares its core with the load generator. Each round's figure is pushed
 * onto `into`.
 */
function withPostgresCpu(postmaster, load, into) {
  return async (options) => {
    // compare()'s warm-up round names its own duration; the measured rounds do not.
    if (options?.duration !== undefined) return load(options);
    const before = postgresCpuMs(postmaster);
    const result = await load(options);
    into.push(((postgresCpuMs(postmaster) - before) * 1000) / Math.max(1, result.requests));
    return result;
  };
}

/**
 * Adds two rows with targets, GET at 1,000 pets vs the static ceiling and PATCH vs a minimal
 * node:http + pg handler, and a figure: two instances on one database driven together.
 * `tools` are run.js's helpers (startProcess with an environment, load, compareAtLeast, …).
 */
export async function postgresBenchmarks(tools) {
  const { bin, root, join, writeSeed, startProcess, load, compareAtLeast } = tools;
  const { figures, pets, log, median, fmt, spread, rounds } = tools;
  const cluster = await startBenchCluster(tools.pinned ? { cores: "0" } : {});
  // PostgreSQL's CPU per request in the rounds: GET (ours), PATCH (ours, the minimal handler).
  const databaseCpu = { get: [], patch: [], minimal: [] };
  try {
    /**
     * A figure (no target): ours against a minimal handler doing the same work, rounds
     * interleaved: requests/s with their spread, PostgreSQL's CPU per request, the ratio of
     * the medians and the errors of each side.
     */
    const sameWorkFigure = async (what, name, referenceName, oursLoad, referenceLoad) => {
      const cpu = { ours: [], reference: [] };
      const runs = await tools.compare(
        name,
        referenceName,
        withPostgresCpu(cluster.pid(), oursLoad, cpu.ours),
        withPostgresCpu(cluster.pid(), referenceLoad, cpu.reference),
      );
      const rates = (side) => runs[side].map((run) => run.rps);
      const errors = (side) => runs[side].reduce((n, run) => n + run.errors, 0);
      figures.push({
        what,
        shown:
          `ours ${fmt(median(rates("ours")))} (${spread(rates("ours"))}), ` +
          `${fmt(median(cpu.ours))} µs; the handler ${fmt(median(rates("reference")))} ` +
          `(${spread(rates("reference"))}), ${fmt(median(cpu.reference))} µs; ` +
          `${(median(rates("ours")) / median(rates("reference"))).toFixed(2)} ×; ` +
          `errors ${errors("ours")} and ${errors("reference")}`,
      });
    };
    /** Our server on `url`; seeded by the first instance started with `seed`. */
    const serve = (url, seed = []) =>
      startProcess([bin, "serve", "--port", "0", ...seed], { PETSTORE_DATABASE_URL: url });
    const seeded = async (name) => {
      const url = await cluster.createDatabase(name);
      await (await serve(url, ["--seed", writeSeed(pets)])).stop();
      return url;
    };

    // GET at 1,000 pets: the cached body, after a revision read on every wave of GETs
    // (fresh-read.ts); the server's CPU per GET is in the row beside it.
    const getUrl = await seeded("bench_get");
    const ours = await serve(getUrl);
    const response = await fetch(`${ours.url}/inventory`, {
      headers: { authorization: `Bearer ${tools.key}` },
    });
    const bodyFile = join(tools.dir, "body-postgres.json");
    tools.writeFile(bodyFile, Buffer.from(await response.arrayBuffer()));
    const ceiling = await startProcess([
      join(root, "bench", "reference-server.js"),
      "static",
      bodyFile,
    ]);
    await compareAtLeast(
      "PostgreSQL: GET at 1,000 pets, requests/s vs the ceiling",
      0.8,
      `PostgreSQL: GET /v1/inventory, ${pets.toLocaleString("en-US")} pets`,
      "bare node:http, same bytes",
      withPostgresCpu(
        cluster.pid(),
        (options) => load(ours, "/v1/inventory", options),
        databaseCpu.get,
      ),
      (options) => load(ceiling, "/v1/inventory", options),
    );
    await ceiling.stop();

    // The same GET against a minimal handler that answers as fresh as ours must: a read of
    // the revision per GET (ours shares one among the GETs of a wave), the body made again
    // only when it moved. What the row above leaves out is that read.
    const freshGet = await startProcess(
      [join(root, "bench", "reference-server.js"), "postgres-fresh-get"],
      { PETSTORE_DATABASE_URL: getUrl },
    );
    await sameWorkFigure(
      "PostgreSQL: GET at 1,000 pets, ours against a minimal node:http + pg handler answering as fresh (the revision read per GET, the pets read again when it moved): requests/s; PostgreSQL's CPU per GET; ratio of the medians",
      "PostgreSQL: GET vs the minimal handler reading as fresh",
      "node:http + pg, the revision read per GET",
      (options) => load(ours, "/v1/inventory", options),
      (options) => load(freshGet, "/v1/inventory", options),
    );
    await ours.stop();
    await freshGet.stop();

    // PATCH: ours against one autocommitted UPDATE … RETURNING per request, same data.
    const patchOurs = await serve(await seeded("bench_patch_ours"));
    const minimal = await startProcess([join(root, "bench", "reference-server.js"), "postgres"], {
      PETSTORE_DATABASE_URL: await seeded("bench_patch_reference"),
    });
    await compareAtLeast(
      "PostgreSQL: PATCH, requests/s vs the minimal handler at equal durability",
      0.9,
      `PostgreSQL: PATCH /v1/inventory/{random of ${pets.toLocaleString("en-US")}}`,
      "node:http + pg, synchronous_commit on",
      withPostgresCpu(
        cluster.pid(),
        (options) => load(patchOurs, "/", { requests: tools.patchRequests(pets), ...options }),
        databaseCpu.patch,
      ),
      withPostgresCpu(
        cluster.pid(),
        (options) => load(minimal, "/", { requests: tools.patchRequests(pets), ...options }),
        databaseCpu.minimal,
      ),
    );
    figures.push({
      what: "PostgreSQL's own CPU per request (all its processes, on the load generator's core) in the rows above: GET ours; PATCH ours; PATCH the minimal handler",
      shown: [databaseCpu.get, databaseCpu.patch, databaseCpu.minimal]
        .map((values) => `${fmt(median(values))} µs (${spread(values)})`)
        .join("; "),
    });
    await minimal.stop();

    // The same PATCH against a minimal handler that makes the writes ours makes: the pet
    // locked, its history record with the next seq. What the row above leaves out is what
    // the spec asks of a write; this one leaves it in, one request a transaction, so every
    // commit waits on the revision row: what ours gains over it is group commit's.
    const equalWork = await startProcess(
      [join(root, "bench", "reference-server.js"), "postgres-history"],
      { PETSTORE_DATABASE_URL: await seeded("bench_patch_equal_work") },
    );
    await sameWorkFigure(
      "PostgreSQL: PATCH, ours against a minimal node:http + pg handler making the same writes (the pet locked, a history record with the next seq from the revision row, one autocommitted statement per request): requests/s; PostgreSQL's CPU per PATCH; ratio of the medians",
      "PostgreSQL: PATCH vs the minimal handler doing the same writes",
      "node:http + pg, the pet locked, a history record with a seq",
      (options) => load(patchOurs, "/", { requests: tools.patchRequests(pets), ...options }),
      (options) => load(equalWork, "/", { requests: tools.patchRequests(pets), ...options }),
    );
    await patchOurs.stop();
    await equalWork.stop();

    // PATCH through PgBouncer in transaction mode (as hosted PostgreSQL puts one in front),
    // against the same server direct. PgBouncer runs beside PostgreSQL, on its core.
    if (hasPgBouncer()) {
      const bouncer = await startBenchPgBouncer(cluster.url("postgres"), {
        ...(tools.pinned ? { cores: "0" } : {}),
      });
      try {
        await seeded("bench_patch_pgbouncer");
        const pooled = await serve(bouncer.url("bench_patch_pgbouncer"));
        const direct = await serve(await seeded("bench_patch_direct"));
        await compareAtLeast(
          "PostgreSQL through PgBouncer (transaction mode): PATCH, requests/s vs direct",
          0.8,
          `PostgreSQL via PgBouncer: PATCH /v1/inventory/{random of ${pets.toLocaleString("en-US")}}`,
          "ours, direct to PostgreSQL",
          (options) => load(pooled, "/", { requests: tools.patchRequests(pets), ...options }),
          (options) => load(direct, "/", { requests: tools.patchRequests(pets), ...options }),
        );
        await pooled.stop();
        await direct.stop();
      } finally {
        await bouncer.stop();
      }
    } else {
      log("PostgreSQL through PgBouncer: skipped, /usr/sbin/pgbouncer is not installed");
    }

    // Two instances on one database, each under its own load at once: PATCHes of random
    // pets from both, so their batches keep touching the same rows in different orders.
    const sharedUrl = await seeded("bench_two_instances");
    const a = await serve(sharedUrl);
    const b = await serve(sharedUrl);
    const both = (options = {}) =>
      Promise.all(
        [a, b].map((server) =>
          load(server, "/", { requests: tools.patchRequests(pets), ...options }),
        ),
      );
    await both({ duration: 1 });
    const totals = [];
    let errors = 0;
    for (let round = 1; round <= rounds; round++) {
      log(`PostgreSQL, two instances: round ${round}/${rounds}`);
      const results = await both();
      totals.push(results.reduce((sum, result) => sum + result.rps, 0));
      errors += results.reduce((sum, result) => sum + result.errors, 0);
    }
    await a.stop();
    await b.stop();
    figures.push({
      what: `PostgreSQL: two instances on one database, PATCH of random pets (of ${pets.toLocaleString("en-US")}) driven on both at once`,
      shown: `${fmt(median(totals))} requests/s in total (${spread(totals)}), ${errors} errors`,
    });
  } finally {
    await cluster.destroy();
  }
}
