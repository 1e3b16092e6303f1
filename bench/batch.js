// The batch rows of `npm run bench` (BENCH_ONLY=batch runs them alone): `inventory apply`
// and `inventory adjust --file` through POST /v1/inventory/batch, as a nightly cron job and a
// till's sales script run them, on the bundled SQLite server and on PostgreSQL; and one batch
// of 10,000 sets as the server answers it.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { startBenchCluster } from "./postgres-cluster.js";

const TIME = "/usr/bin/time";

/**
 * Runs `node args` (on every core, in the bench's clean environment plus `options.env`) and
 * gives its wall time in ms, its peak RSS in MB (from /usr/bin/time, when the machine has it)
 * and its stdout. `options.input`, when given, is written to its stdin through a pipe (as
 * `printf … |` would) and the pipe closed; otherwise stdin is /dev/null.
 */
export function runMeasured(tools, args, options = {}) {
  const { onEveryCore, env, dir, join } = tools;
  const [command, argv] = onEveryCore(args);
  const rssFile = join(dir, "rss.txt");
  const [run, runArgv] = existsSync(TIME)
    ? [TIME, ["-f", "%M", "-o", rssFile, command, ...argv]]
    : [command, argv];
  const start = process.hrtime.bigint();
  const result = spawnSync(run, runArgv, {
    env: { ...env, ...options.env },
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    ...(options.input === undefined ? {} : { input: options.input }),
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) {
    throw new Error(
      `${args.join(" ")} exited ${result.status}: ${result.stderr.toString().slice(0, 2000)}`,
    );
  }
  const rssMb = existsSync(TIME) ? Number(readFileSync(rssFile, "utf8").trim()) / 1024 : NaN;
  return { ms, rssMb, stdout: result.stdout.toString() };
}

/** A counts file of `rows` pets, every quantity different from the seed's and the last run's. */
function countsFile(tools, name, rows, round) {
  const lines = Array.from({ length: rows }, (_, i) => `${i + 1},${round * 100 + (i % 50)}`);
  const file = tools.join(tools.dir, name);
  writeFileSync(file, `petId,quantity\n${lines.join("\n")}\n`);
  return file;
}

/** A day's sales: `rows` lines of -1 spread over `pets` pets, no refs (the file's hash names them). */
function salesFile(tools, name, rows, pets) {
  const lines = Array.from({ length: rows }, (_, i) => `${(i % pets) + 1},-1`);
  const file = tools.join(tools.dir, name);
  writeFileSync(file, `petId,delta\n${lines.join("\n")}\n`);
  return file;
}

/** `inventory apply` of `rows` changed rows against `server`, `rounds` times: medians. */
function timeApply(tools, server, rows, rounds, label) {
  const { bin, log, median } = tools;
  const runs = [];
  for (let round = 1; round <= rounds; round++) {
    log(`${label}: round ${round}/${rounds}`);
    const file = countsFile(tools, `counts-${rows}-${round}.csv`, rows, round);
    const run = runMeasured(tools, [
      bin,
      "--base-url",
      server.url,
      "inventory",
      "apply",
      "--json",
      file,
    ]);
    const report = JSON.parse(run.stdout);
    if (report.changed !== rows) throw new Error(`${label}: ${report.changed} of ${rows} changed`);
    runs.push(run);
  }
  return {
    seconds: median(runs.map((run) => run.ms)) / 1000,
    spread: runs.map((run) => run.ms / 1000),
    rssMb: median(runs.map((run) => run.rssMb)),
  };
}

/** Adds the batch rows (targets and figures) to the report. */
export async function batchBenchmarks(tools) {
  const { bin, log, median, fmt, spread, targets, figures, seededDb, startOurs, key } = tools;
  const rounds = Math.min(tools.rounds, 3);

  // apply, 10,000 and 100,000 changed rows, bundled SQLite server.
  const small = await startOurs(await seededDb("batch-10k.db", 10_000));
  const tenK = timeApply(tools, small, 10_000, rounds, "inventory apply, 10,000 rows");
  targets.push({
    what: "`inventory apply`, 10,000 changed rows (s)",
    value: tenK.seconds,
    target: 0.4,
  });
  figures.push({
    what: "inventory apply of 10,000 changed rows to the local server",
    shown: `${fmt(tenK.seconds)} s (${spread(tenK.spread)} s), CLI peak RSS ${fmt(tenK.rssMb)} MB`,
  });

  // One batch of 10,000 sets, as a client on the same machine sees it answered (an upper
  // bound of the server's time: it includes sending 0.3 MB and reading the answer).
  const batchTimes = [];
  for (let round = 1; round <= 7; round++) {
    const changes = Array.from({ length: 10_000 }, (_, i) => ({
      petId: i + 1,
      quantity: 1000 + round * 10 + (i % 7),
    }));
    const body = JSON.stringify({ changes });
    const start = process.hrtime.bigint();
    const response = await fetch(`${small.url}/inventory/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
    });
    const answer = await response.json();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (answer.changed !== 10_000) throw new Error(`a batch of sets changed ${answer.changed}`);
    if (round > 2) batchTimes.push(ms); // two warm-up rounds
  }
  targets.push({
    what: "one batch of 10,000 sets on SQLite, answered to a local client (ms)",
    value: median(batchTimes),
    target: 100,
  });

  // adjust --file: a day's 10,000 sales, then the same file again (nothing applies twice).
  const sales = salesFile(tools, "sales.csv", 10_000, 1_000);
  const first = runMeasured(tools, [
    bin,
    "--base-url",
    small.url,
    "inventory",
    "adjust",
    "--file",
    sales,
    "--ref-prefix",
    "bench/day-1",
    "--json",
  ]);
  const firstReport = JSON.parse(first.stdout);
  const again = [];
  let againReport;
  for (let round = 1; round <= rounds; round++) {
    const run = runMeasured(tools, [
      bin,
      "--base-url",
      small.url,
      "inventory",
      "adjust",
      "--file",
      sales,
      "--ref-prefix",
      "bench/day-1",
      "--json",
    ]);
    againReport = JSON.parse(run.stdout);
    again.push(run.ms);
  }
  if (firstReport.changed !== 10_000 || againReport.changed !== 0) {
    throw new Error(`adjust --file changed ${firstReport.changed}, then ${againReport.changed}`);
  }
  // Fresh files (another day's sales) for the timing of a first run.
  const firstRuns = [first.ms];
  for (let round = 2; round <= rounds; round++) {
    const file = salesFile(tools, `sales-${round}.csv`, 10_000 + round, 1_000);
    firstRuns.push(
      runMeasured(tools, [
        bin,
        "--base-url",
        small.url,
        "inventory",
        "adjust",
        "--file",
        file,
        "--ref-prefix",
        `bench/day-${round}`,
        "--json",
      ]).ms,
    );
  }
  targets.push({
    what: "`inventory adjust --file`, 10,000 sales rows (s)",
    value: median(firstRuns) / 1000,
    target: 0.5,
  });
  figures.push({
    what: "inventory adjust --file of 10,000 sales rows; the same file again",
    shown: `${fmt(median(firstRuns) / 1000)} s (${spread(firstRuns.map((ms) => ms / 1000))} s), 10,000 changed; again: ${fmt(median(again) / 1000)} s, 0 changed, 10,000 duplicate`,
  });
  await small.stop();

  const large = await startOurs(await seededDb("batch-100k.db", 100_000));
  const hundredK = timeApply(tools, large, 100_000, rounds, "inventory apply, 100,000 rows");
  await large.stop();
  targets.push({
    what: "`inventory apply`, 100,000 changed rows, SQLite (s)",
    value: hundredK.seconds,
    target: 2,
  });
  targets.push({
    what: "`inventory apply`, 100,000 changed rows: CLI peak RSS (MB)",
    value: hundredK.rssMb,
    target: 150,
  });

  // The same on PostgreSQL.
  log("inventory apply on PostgreSQL: starting a cluster");
  const cluster = await startBenchCluster(tools.pinned ? { cores: "0" } : {});
  try {
    const url = await cluster.createDatabase("bench_apply");
    const serve = (seed = []) =>
      tools.startProcess([bin, "serve", "--port", "0", ...seed], { PETSTORE_DATABASE_URL: url });
    await (await serve(["--seed", tools.writeSeed(100_000)])).stop();
    const server = await serve();
    const onPostgres = timeApply(
      tools,
      server,
      100_000,
      rounds,
      "inventory apply on PostgreSQL, 100,000 rows",
    );
    await server.stop();
    targets.push({
      what: "`inventory apply`, 100,000 changed rows, PostgreSQL (s)",
      value: onPostgres.seconds,
      target: 4,
    });
    figures.push({
      what: "inventory apply of 100,000 changed rows: SQLite; PostgreSQL",
      shown: `${fmt(hundredK.seconds)} s (${spread(hundredK.spread)} s), CLI peak RSS ${fmt(hundredK.rssMb)} MB; ${fmt(onPostgres.seconds)} s (${spread(onPostgres.spread)} s), CLI peak RSS ${fmt(onPostgres.rssMb)} MB`,
    });
  } finally {
    await cluster.destroy();
  }
}
