// `npm run bench`: measures our server and CLI against references on the same
// machine in one run, and writes the figures to BENCHMARKS.md. Rounds are
// interleaved (ours, reference, ours, ...) so drift on a noisy machine hits
// both alike; figures are medians with the spread (min-max) across rounds.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";

const root = join(import.meta.dirname, "..");
const bin = join(root, "bin", "petstore.js");
const KEY = "bench-key";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = 10;
const CLI_RUNS = Number(process.env.BENCH_CLI_RUNS ?? 15);
const dir = mkdtempSync(join(os.tmpdir(), "petstore-bench-"));
const env = { ...process.env, PETSTORE_API_KEYS: KEY, PETSTORE_API_KEY: KEY };

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const spread = (values) => `${fmt(Math.min(...values))}–${fmt(Math.max(...values))}`;
const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(2));
const log = (message) => process.stderr.write(`${message}\n`);

/** Starts a server process that prints `listening on URL`; resolves with its URL and process. */
async function startProcess(args) {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "ignore"] });
  const url = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}`)));
    child.stdout.on("data", (chunk) => {
      const match = /listening on (\S+)/.exec(chunk.toString());
      if (match) resolve(match[1]);
    });
  });
  return {
    url,
    child,
    async stop() {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

function writeSeed(count) {
  const file = join(dir, `seed-${count}.json`);
  const statuses = ["available", "pending", "sold"];
  const pets = Array.from({ length: count }, (_, i) => ({
    petId: i + 1,
    name: `Pet ${i + 1}`,
    status: statuses[i % 3],
    quantity: i % 50,
  }));
  writeFileSync(file, JSON.stringify(pets));
  return file;
}

const startOurs = (db, seed) =>
  startProcess([
    bin,
    "serve",
    "--port",
    "0",
    "--db",
    join(dir, db),
    ...(seed ? ["--seed", seed] : []),
  ]);

/** Samples the resident set size of `pid` while `work` runs; resolves with [result, max RSS MB]. */
async function withRss(pid, work) {
  let max = 0;
  const sample = () => {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    if (match) max = Math.max(max, Number(match[1]) / 1024);
  };
  const timer = setInterval(sample, 100);
  try {
    return [await work(), max];
  } finally {
    clearInterval(timer);
  }
}

async function load(url, options = {}) {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    ...options,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

function patchRequests(pets) {
  return [
    {
      method: "PATCH",
      setupRequest: (request) => ({
        ...request,
        path: `/v1/inventory/${1 + Math.floor(Math.random() * pets)}`,
        body: JSON.stringify({ quantity: Math.floor(Math.random() * 1000) }),
      }),
    },
  ];
}

/** Runs ours and the reference alternately for ROUNDS rounds. */
async function compare(name, ours, reference) {
  const runs = { ours: [], reference: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    log(`${name}: round ${round}/${ROUNDS}`);
    runs.ours.push(await ours());
    runs.reference.push(await reference());
  }
  return { name, ...runs };
}

const rows = [];
const targets = [];

async function serverBenchmarks() {
  for (const pets of [1000, 10000]) {
    const seed = writeSeed(pets);
    const ours = await startOurs(`get-${pets}.db`, seed);
    const body = Buffer.from(
      await (
        await fetch(`${ours.url}/inventory`, { headers: { authorization: `Bearer ${KEY}` } })
      ).arrayBuffer(),
    );
    const bodyFile = join(dir, `body-${pets}.json`);
    writeFileSync(bodyFile, body);
    const ceiling = await startProcess([
      join(root, "bench", "reference-server.js"),
      "static",
      bodyFile,
    ]);
    await load(`${ours.url}/inventory`, { duration: 1 }); // warm-up
    await load(`${ceiling.url}/inventory`, { duration: 1 });
    let rss = 0;
    const result = await compare(
      `GET /v1/inventory, ${pets.toLocaleString("en-US")} pets (${Math.round(body.length / 1024)} KiB)`,
      async () => {
        const [figures, max] = await withRss(ours.child.pid, () => load(`${ours.url}/inventory`));
        rss = Math.max(rss, max);
        return figures;
      },
      () => load(`${ceiling.url}/inventory`),
    );
    rows.push({
      ...result,
      reference: result.reference,
      referenceName: "bare node:http, same bytes",
    });
    if (pets === 1000) {
      targets.push({
        what: "GET at 1,000 pets vs the ceiling",
        ratio: median(result.ours.map((r) => r.rps)) / median(result.reference.map((r) => r.rps)),
        target: 0.8,
        higherIsBetter: true,
      });
    } else {
      targets.push({
        what: "server RSS at 10,000 pets under GET load (MB)",
        value: rss,
        target: 100,
        higherIsBetter: false,
      });
    }
    await ours.stop();
    await ceiling.stop();
  }

  const pets = 1000;
  const seed = writeSeed(pets);
  const ours = await startOurs("patch-ours.db", seed);
  const refDbServer = await startOurs("patch-ref.db", seed); // same schema and data
  await refDbServer.stop();
  const minimal = await startProcess([
    join(root, "bench", "reference-server.js"),
    "sqlite",
    join(dir, "patch-ref.db"),
  ]);
  const result = await compare(
    `PATCH /v1/inventory/{random of ${pets.toLocaleString("en-US")}}`,
    () => load(ours.url.replace(/\/v1$/, ""), { requests: patchRequests(pets) }),
    () => load(minimal.url.replace(/\/v1$/, ""), { requests: patchRequests(pets) }),
  );
  rows.push({ ...result, referenceName: "node:http + better-sqlite3, synchronous=FULL" });
  targets.push({
    what: "PATCH vs the minimal handler at equal durability",
    ratio: median(result.ours.map((r) => r.rps)) / median(result.reference.map((r) => r.rps)),
    target: 0.8,
    higherIsBetter: true,
  });
  await ours.stop();
  await minimal.stop();
}

/** Wall time of `node args` in milliseconds, median of CLI_RUNS runs interleaved with the reference. */
function timeCommands(name, ours, reference) {
  const time = (args) => {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  time(ours);
  time(reference);
  const runs = { ours: [], reference: [] };
  for (let i = 0; i < CLI_RUNS; i++) {
    runs.ours.push(time(ours));
    runs.reference.push(time(reference));
  }
  return { name, ...runs };
}

const cliRows = [];

async function cliBenchmarks() {
  const version = timeCommands("petstore --version vs node -e 0", [bin, "--version"], ["-e", "0"]);
  cliRows.push(version);
  targets.push({
    what: "petstore --version vs node -e 0",
    ratio: median(version.ours) / median(version.reference),
    target: 1.2,
    higherIsBetter: false,
  });

  const server = await startOurs("cli.db", writeSeed(1000));
  const bare = join(dir, "bare-fetch.mjs");
  writeFileSync(
    bare,
    `const r = await fetch(process.argv[2] + "/inventory", { headers: { authorization: "Bearer " + process.env.PETSTORE_API_KEY } });\n` +
      `process.stdout.write(JSON.stringify(await r.json(), null, 2) + "\\n");\n`,
  );
  const list = timeCommands(
    "petstore inventory list --json vs a bare fetch script (1,000 pets)",
    [bin, "--base-url", server.url, "inventory", "list", "--json"],
    [bare, server.url],
  );
  cliRows.push(list);
  targets.push({
    what: "inventory list --json vs a bare fetch",
    ratio: median(list.ours) / median(list.reference),
    target: 1.4,
    higherIsBetter: false,
  });
  await server.stop();
}

function report() {
  const cpus = os.cpus();
  const lines = [
    "# Benchmarks",
    "",
    "Written by `npm run bench`. Ratios compare figures measured in the same run, rounds interleaved;",
    "each figure is the median of the rounds, with the spread (min–max) beside it.",
    "",
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus.length} × ${cpus[0]?.model ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}`,
    `- Node.js: ${process.version}`,
    `- Load: autocannon, ${CONNECTIONS} connections, ${DURATION} s per round, ${ROUNDS} rounds; CLI: ${CLI_RUNS} runs each`,
    "",
    "## Targets",
    "",
    "| what | measured | target | met |",
    "|---|---|---|---|",
    ...targets.map((t) => {
      const measured = t.ratio ?? t.value;
      const met = t.higherIsBetter ? measured >= t.target : measured <= t.target;
      const shown = t.ratio === undefined ? fmt(measured) : `${measured.toFixed(2)} ×`;
      return `| ${t.what} | ${shown} | ${t.higherIsBetter ? "≥" : "≤"} ${t.target}${t.ratio === undefined ? "" : " ×"} | ${met ? "yes" : "**no**"} |`;
    }),
    "",
    "## Server",
    "",
    "| scenario | server | requests/s (spread) | p50 ms | p99 ms | errors |",
    "|---|---|---|---|---|---|",
  ];
  for (const row of rows) {
    for (const [who, runs] of [
      ["ours", row.ours],
      [row.referenceName, row.reference],
    ]) {
      const rps = runs.map((r) => r.rps);
      lines.push(
        `| ${row.name} | ${who} | ${fmt(median(rps))} (${spread(rps)}) | ${fmt(median(runs.map((r) => r.p50)))} | ${fmt(median(runs.map((r) => r.p99)))} | ${runs.reduce((n, r) => n + r.errors, 0)} |`,
      );
    }
    lines.push(
      `| | ratio ours / reference | ${(median(row.ours.map((r) => r.rps)) / median(row.reference.map((r) => r.rps))).toFixed(2)} × | | | |`,
    );
  }
  lines.push(
    "",
    "## CLI",
    "",
    "| command | ours ms (spread) | reference ms (spread) | ratio |",
    "|---|---|---|---|",
  );
  for (const row of cliRows) {
    lines.push(
      `| ${row.name} | ${fmt(median(row.ours))} (${spread(row.ours)}) | ${fmt(median(row.reference))} (${spread(row.reference)}) | ${(median(row.ours) / median(row.reference)).toFixed(2)} × |`,
    );
  }
  lines.push("");
  writeFileSync(join(root, "BENCHMARKS.md"), lines.join("\n"));
  process.stdout.write(lines.join("\n"));
}

try {
  await serverBenchmarks();
  await cliBenchmarks();
  report();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
