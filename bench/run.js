// `npm run bench`: measures our server and CLI against references on the same
// machine in one run, and writes the figures to BENCHMARKS.md. Rounds are
// interleaved (ours, reference, ours, ...) so drift on a noisy machine hits
// both alike; figures are medians with the spread (min-max) across rounds.
// With two or more cores, servers run on core 1 and the load generator and
// the CLI on core 0, so client and server never fight over one core.
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { buildCommit } from "./baseline.js";
import { batchBenchmarks } from "./batch.js";
import { countBenchmarks } from "./count.js";
import { feedBenchmarks } from "./feed.js";
import { metricsBenchmarks } from "./metrics.js";
import { postgresBenchmarks } from "./postgres.js";
import { tlsBenchmarks } from "./tls.js";

const root = join(import.meta.dirname, "..");
const bin = join(root, "bin", "petstore.js");
const KEY = "bench-key";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = 10;
const CLI_RUNS = Number(process.env.BENCH_CLI_RUNS ?? 21);
const dir = mkdtempSync(join(os.tmpdir(), "petstore-bench-"));
// Servers and the commands the bench runs get a clean environment, as a service manager or
// cron gives them: variables of the shell the bench runs in (NODE_EXTRA_CA_CERTS loads a CA
// bundle into every process, about 5 MB of RSS for a server; NODE_OPTIONS; proxies) would
// change what is measured.
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  PETSTORE_API_KEYS: KEY,
  PETSTORE_API_KEY: KEY,
  PETSTORE_LOG_LEVEL: "info",
};
const pinned = os.cpus().length >= 2 && existsSync("/usr/bin/taskset");
if (pinned) spawnSync("taskset", ["-cp", "0", String(process.pid)], { stdio: "ignore" });

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1));
const spread = (values) => `${fmt(Math.min(...values))}–${fmt(Math.max(...values))}`;
const log = (message) => process.stderr.write(`${message}\n`);

/** Every server started, so a failed run still stops them all. */
const children = new Set();

/**
 * Starts a server process (on core 1 when pinned) that prints `listening on URL`, with
 * `moreEnv` added to its environment.
 */
async function startProcess(args, moreEnv = {}) {
  const [command, argv] = pinned
    ? ["taskset", ["-c", "1", process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(command, argv, {
    env: { ...env, ...moreEnv },
    stdio: ["ignore", "pipe", "ignore"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let out = "";
  const url = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}`)));
    child.stdout.on("data", (chunk) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
  });
  return {
    url,
    pid: child.pid,
    stdout: () => out,
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

/** A database file holding `count` pets: seeded once by a server that is then stopped. */
async function seededDb(name, count, binary = bin) {
  const db = join(dir, name);
  const seeding = await startProcess([
    binary,
    "serve",
    "--port",
    "0",
    "--db",
    db,
    "--seed",
    writeSeed(count),
  ]);
  await seeding.stop();
  return db;
}

/** Starts our server on an already seeded database, as a long-running server would be. */
const startOurs = (db) => startProcess([bin, "serve", "--port", "0", "--db", db]);

/** CPU time (user + system) of `pid` so far, in milliseconds. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms
}

/** Largest resident set size of `pid` seen while `work` runs, in MB. */
async function maxRss(pid, work) {
  let max = 0;
  const sample = () => {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    if (match) max = Math.max(max, Number(match[1]) / 1024);
  };
  const timer = setInterval(sample, 100);
  try {
    const result = await work();
    sample();
    return [result, max];
  } finally {
    clearInterval(timer);
  }
}

/** One autocannon round against `server`; adds the server's CPU time per request. */
async function load(server, path, options = {}) {
  const before = cpuMs(server.pid);
  const result = await autocannon({
    url: server.url.replace(/\/v1$/, "") + path,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    ...options,
  });
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    cpuUsPerRequest: ((cpuMs(server.pid) - before) * 1000) / Math.max(1, result.requests.total),
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

/** A UUIDv7, as the CLI makes its Idempotency-Keys (src/client/idempotency-key.ts). */
function timeOrderedUuid() {
  const hex =
    Date.now().toString(16).padStart(12, "0") + randomUUID().replaceAll("-", "").slice(12);
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/**
 * PATCH requests of one kind against a server whose quantities `known` tracks (seeded as
 * writeSeed does): "plain"; "conditional", with `If-Match` naming the quantity the pet holds,
 * so the write passes (a 412, rare with 10 connections over 1,000 pets, counts as an error);
 * "idempotent", with a new `Idempotency-Key` per request as the CLI makes them (time-ordered);
 * "idempotent-random", with a new random (version 4) key per request, as other clients may.
 */
function patchVariant(pets, known, kind) {
  return [
    {
      method: "PATCH",
      setupRequest: (request) => {
        const index = Math.floor(Math.random() * pets);
        const quantity = Math.floor(Math.random() * 1000);
        const headers = { ...request.headers };
        if (kind === "conditional") headers["if-match"] = `"${known[index]}"`;
        if (kind === "idempotent") headers["idempotency-key"] = timeOrderedUuid();
        if (kind === "idempotent-random") headers["idempotency-key"] = randomUUID();
        known[index] = quantity;
        return {
          ...request,
          headers,
          path: `/v1/inventory/${index + 1}`,
          body: JSON.stringify({ quantity }),
        };
      },
    },
  ];
}

/** Runs ours and the reference alternately for ROUNDS rounds, after a warm-up of each. */
async function compare(name, referenceName, ours, reference) {
  await ours({ duration: 1 });
  await reference({ duration: 1 });
  const runs = { ours: [], reference: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    log(`${name}: round ${round}/${ROUNDS}`);
    runs.ours.push(await ours());
    runs.reference.push(await reference());
  }
  return { name, referenceName, ...runs };
}

const ratioOf = (row, key = "rps") =>
  median(row.ours.map((r) => r[key])) / median(row.reference.map((r) => r[key]));

const rows = [];
const targets = [];
const figures = [];

/**
 * compare(name, referenceName, ours, reference), its row kept, and its requests/s ratio held
 * to a target: at least `target` × the reference's.
 */
async function compareAtLeast(what, target, ...comparison) {
  const row = await compare(...comparison);
  rows.push(row);
  targets.push({ what, ratio: ratioOf(row), target, atLeast: true });
}

async function serverBenchmarks() {
  for (const pets of [1000, 10000]) {
    const db = await seededDb(`get-${pets}.db`, pets);
    const ours = await startOurs(db);
    const response = await fetch(`${ours.url}/inventory`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const body = Buffer.from(await response.arrayBuffer());
    const bodyFile = join(dir, `body-${pets}.json`);
    writeFileSync(bodyFile, body);
    const ceiling = await startProcess([
      join(root, "bench", "reference-server.js"),
      "static",
      bodyFile,
    ]);
    let rss = 0;
    const row = await compare(
      `GET /v1/inventory, ${pets.toLocaleString("en-US")} pets (${Math.round(body.length / 1024)} KiB)`,
      "bare node:http, same bytes",
      async (options) => {
        const [result, max] = await maxRss(ours.pid, () => load(ours, "/v1/inventory", options));
        rss = Math.max(rss, max);
        return result;
      },
      (options) => load(ceiling, "/v1/inventory", options),
    );
    rows.push(row);
    if (pets === 1000) {
      targets.push({
        what: "GET at 1,000 pets, requests/s vs the ceiling",
        ratio: ratioOf(row),
        target: 0.8,
        atLeast: true,
      });
    } else {
      targets.push({
        what: "server RSS at 10,000 pets under GET load (MB)",
        value: rss,
        target: 100,
        atLeast: false,
      });
    }
    await ours.stop();
    await ceiling.stop();
  }

  const pets = 1000;
  const ours = await startOurs(await seededDb("patch-ours.db", pets));
  const minimal = await startProcess([
    join(root, "bench", "reference-server.js"),
    "sqlite",
    await seededDb("patch-ref.db", pets), // same schema and data
  ]);
  await compareAtLeast(
    "PATCH, requests/s vs the minimal handler at equal durability",
    0.8,
    `PATCH /v1/inventory/{random of ${pets.toLocaleString("en-US")}}`,
    "node:http + better-sqlite3, synchronous=FULL",
    (options) => load(ours, "/", { requests: patchRequests(pets), ...options }),
    (options) => load(minimal, "/", { requests: patchRequests(pets), ...options }),
  );
  await ours.stop();
  await minimal.stop();

  // Conditional and idempotent PATCH against plain PATCH, on one server, rounds interleaved.
  const variants = await startOurs(await seededDb("patch-variants.db", pets));
  const known = Array.from({ length: pets }, (_, i) => i % 50);
  const plain = (options) =>
    load(variants, "/", { requests: patchVariant(pets, known, "plain"), ...options });
  for (const [kind, name] of [
    ["conditional", "PATCH with If-Match (matching)"],
    ["idempotent", "PATCH with a new Idempotency-Key each (time-ordered, as the CLI's)"],
  ]) {
    await compareAtLeast(
      `${name}, requests/s vs plain PATCH`,
      0.8,
      `${name}, random of ${pets.toLocaleString("en-US")}`,
      "plain PATCH, same server",
      (options) => load(variants, "/", { requests: patchVariant(pets, known, kind), ...options }),
      plain,
    );
  }
  // Random keys land on random pages of the key index: shown, with no target.
  rows.push(
    await compare(
      `PATCH with a new random (version 4) Idempotency-Key each, random of ${pets.toLocaleString("en-US")}`,
      "plain PATCH, same server",
      (options) =>
        load(variants, "/", {
          requests: patchVariant(pets, known, "idempotent-random"),
          ...options,
        }),
      plain,
    ),
  );
  await variants.stop();
}

/** How long the memory row drives idempotent writes, in seconds (RSS from minute 1 to the end). */
const MEMORY_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 300);

/** Resident set size of `pid` now, in MiB. */
function rssMiB(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : 0;
}

/**
 * Sustained PATCHes, each with a new random Idempotency-Key (every CLI write sends one; random
 * keys make the key index grow fastest), for
 * MEMORY_SECONDS: the server's RSS at minute 1 and at the end must stay within 20 MiB, since
 * every key is kept for 24 hours in the database, not in memory.
 */
async function memoryBenchmark() {
  const pets = 1000;
  const server = await startOurs(await seededDb("memory.db", pets));
  const known = Array.from({ length: pets }, (_, i) => i % 50);
  const samples = [];
  const started = performance.now();
  const timer = setInterval(() => {
    samples.push({ at: (performance.now() - started) / 1000, rss: rssMiB(server.pid) });
  }, 1000);
  log(`memory: ${MEMORY_SECONDS} s of PATCHes with a new Idempotency-Key each`);
  let result;
  try {
    result = await load(server, "/", {
      requests: patchVariant(pets, known, "idempotent-random"),
      duration: MEMORY_SECONDS,
    });
  } finally {
    clearInterval(timer);
  }
  await server.stop();
  const atMinute = samples.find((sample) => sample.at >= 60) ?? samples[0];
  const last = samples.at(-1);
  const growth = (last?.rss ?? 0) - (atMinute?.rss ?? 0);
  const peak = Math.max(...samples.map((sample) => sample.rss));
  targets.push({
    what: `server RSS growth from minute 1 to the end of ${MEMORY_SECONDS / 60} min of PATCHes with a new Idempotency-Key each (MiB)`,
    value: growth,
    target: 20,
    atLeast: false,
  });
  figures.push({
    what: `Sustained idempotent PATCHes, ${MEMORY_SECONDS} s: server RSS at minute 1, at the end, peak`,
    shown: `${fmt(atMinute?.rss ?? 0)} MiB, ${fmt(last?.rss ?? 0)} MiB, ${fmt(peak)} MiB; ${fmt(result.rps)} requests/s, ${fmt(result.rps * MEMORY_SECONDS)} keys, ${result.errors} errors`,
  });
}

/** The last commit before every change was kept in a history (issue 13): the "before" figure. */
const HISTORY_BASELINE = "b3b7f6c";

/**
 * PATCH now, each change appending its history record in its transaction, against the same
 * PATCH built from HISTORY_BASELINE, each server on its own copy of the same data.
 */
async function historyBenchmark() {
  const pets = 1000;
  const baseline = buildCommit(root, HISTORY_BASELINE, dir, "before-history");
  if (!baseline.bin) {
    figures.push({
      what: "PATCH with history vs before it",
      shown: `not measured: ${baseline.reason}`,
    });
    return;
  }
  const now = await startOurs(await seededDb("history-now.db", pets));
  const before = await startProcess([
    baseline.bin,
    "serve",
    "--port",
    "0",
    "--db",
    await seededDb("history-before.db", pets, baseline.bin),
  ]);
  await compareAtLeast(
    "PATCH with a history record per change, requests/s vs before history",
    0.8,
    `PATCH /v1/inventory/{random of ${pets.toLocaleString("en-US")}}, history kept`,
    `the same PATCH before history (${HISTORY_BASELINE})`,
    (options) => load(now, "/", { requests: patchRequests(pets), ...options }),
    (options) => load(before, "/", { requests: patchRequests(pets), ...options }),
  );
  await now.stop();
  await before.stop();
}

/** The command line running `node args` on every core, as a user's command runs. */
function onEveryCore(args, node = process.execPath) {
  return pinned ? ["taskset", ["-c", `0-${os.cpus().length - 1}`, node, ...args]] : [node, args];
}

/**
 * Wall time of `node args` in milliseconds, in `options.env` (the bench's environment
 * unless given) with `options.node` (this Node.js unless given).
 */
function timeNode(args, options = {}) {
  const start = process.hrtime.bigint();
  // A command runs on every core, as a user's does (the bench itself is pinned to core 0).
  // Output goes to /dev/null: a pipe buffer would cap (and kill) large outputs.
  const [command, argv] = onEveryCore(args, options.node);
  const result = spawnSync(command, argv, {
    env: options.env ?? env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * What a user's cron job or CI runner gives a command (`env -i PATH=…` plus the key): no
 * NODE_EXTRA_CA_CERTS, NODE_OPTIONS or proxy variables, whose costs (loading a CA bundle
 * is ~45 ms) would fall on both sides of a pair and dilute its ratio.
 */
const cleanEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", PETSTORE_API_KEY: KEY };

/**
 * CLI_RUNS pairs of runs, ours then the reference, after one warm-up run of each. Machine
 * noise moves both runs of a pair alike, so the figure is the median of the pair ratios.
 */
function timeCommands(name, referenceName, ours, theirs, options) {
  timeNode(ours, options);
  timeNode(theirs, options);
  const runs = { ours: [], reference: [], ratios: [] };
  for (let i = 0; i < CLI_RUNS; i++) {
    const pair = [timeNode(ours, options), timeNode(theirs, options)];
    runs.ours.push(pair[0]);
    runs.reference.push(pair[1]);
    runs.ratios.push(pair[0] / pair[1]);
  }
  return { name, referenceName, ...runs };
}

/** A bare script: one request with the built-in fetch, the JSON body printed as ours prints it. */
function bareFetchScript(name, method, path, body) {
  const file = join(dir, `bare-${name}.mjs`);
  const headers = [
    `authorization: "Bearer " + process.env.PETSTORE_API_KEY`,
    ...(body === undefined
      ? []
      : [`"content-type": "application/json"`, `"idempotency-key": crypto.randomUUID()`]),
  ];
  writeFileSync(
    file,
    `const r = await fetch(process.argv[2] + ${JSON.stringify(path)}, { method: ${JSON.stringify(method)}, ` +
      `headers: { ${headers.join(", ")} }${body === undefined ? "" : `, body: ${JSON.stringify(JSON.stringify(body))}`} });\n` +
      `if (!r.ok) process.exit(1);\n` +
      `process.stdout.write(JSON.stringify(await r.json(), null, 2) + "\\n");\n`,
  );
  return file;
}

const cliRows = [];

/** The Node.js binaries the CLI rows run on: this one, then those in BENCH_CLI_NODES. */
function cliNodes() {
  const extra = (process.env.BENCH_CLI_NODES ?? "").split(":").filter((path) => path !== "");
  return [process.execPath, ...extra].map((path) => ({
    path,
    version: spawnSync(path, ["--version"], { encoding: "utf8" }).stdout.trim(),
  }));
}

async function cliBenchmarks() {
  const server = await startOurs(await seededDb("cli.db", 1000));
  const url = server.url;
  const commands = [
    {
      what: "petstore --version",
      ours: [bin, "--version"],
      reference: "node -e 0",
      theirs: ["-e", "0"],
      target: 1.2,
    },
    {
      what: "petstore inventory list --json (1,000 pets)",
      ours: [bin, "--base-url", url, "inventory", "list", "--json"],
      reference: "a bare fetch script",
      theirs: [bareFetchScript("list", "GET", "/inventory"), url],
      target: 1.3,
    },
    {
      what: "petstore inventory get 1",
      ours: [bin, "--base-url", url, "inventory", "get", "1"],
      reference: "a bare fetch script",
      theirs: [bareFetchScript("get", "GET", "/inventory/1"), url],
      target: 1.3,
    },
    {
      what: "petstore inventory set 1 7",
      ours: [bin, "--base-url", url, "inventory", "set", "1", "7"],
      reference: "a bare fetch script (with an Idempotency-Key, as ours sends)",
      theirs: [bareFetchScript("set", "PATCH", "/inventory/1", { quantity: 7 }), url],
      target: 1.3,
    },
  ];
  for (const node of cliNodes()) {
    for (const command of commands) {
      log(`${command.what}, Node.js ${node.version}: ${CLI_RUNS} pairs`);
      const row = timeCommands(
        `${command.what}, Node.js ${node.version}`,
        command.reference,
        command.ours,
        command.theirs,
        { node: node.path, env: cleanEnv },
      );
      cliRows.push(row);
      targets.push({
        what: `${command.what} vs ${command.reference}, Node.js ${node.version}`,
        ratio: median(row.ratios),
        target: command.target,
        atLeast: false,
      });
    }
  }
  // The environment the bench runs in, NODE_EXTRA_CA_CERTS and all, for comparison.
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
    const { what, ours, reference, theirs } = commands[0];
    log(`${what} with NODE_EXTRA_CA_CERTS set: ${CLI_RUNS} pairs`);
    cliRows.push(
      timeCommands(`${what}, NODE_EXTRA_CA_CERTS set (not a target)`, reference, ours, theirs, {
        env: { ...cleanEnv, NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS },
      }),
    );
  }
  await server.stop();
}

/** Runs `node args` without waiting; resolves with its exit code. */
function runNode(args) {
  const [command, argv] = onEveryCore(args);
  const child = spawn(command, argv, { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

/**
 * `inventory adjust` from ADJUST_WORKERS parallel processes on one hot pet, each running
 * ADJUST_RUNS adjusts one after the other: changes per second, and proof that none is lost
 * (the final quantity is the start minus every acknowledged change).
 */
async function adjustBenchmark() {
  const workers = 8;
  const runs = Number(process.env.BENCH_ADJUST_RUNS ?? 10);
  const start = 1_000_000;
  const server = await startOurs(await seededDb("adjust.db", 1000));
  const set = await runNode([
    bin,
    "--base-url",
    server.url,
    "inventory",
    "set",
    "1",
    String(start),
  ]);
  if (set.code !== 0) throw new Error(`inventory set failed: ${set.stderr}`);
  log(`inventory adjust: ${workers} processes × ${runs} adjusts on one pet`);
  const began = process.hrtime.bigint();
  const outcomes = await Promise.all(
    Array.from({ length: workers }, async () => {
      const codes = [];
      for (let i = 0; i < runs; i++) {
        const run = await runNode([
          bin,
          "--base-url",
          server.url,
          "inventory",
          "adjust",
          "1",
          "-1",
        ]);
        if (run.code !== 0 && run.code !== 8) throw new Error(`adjust failed: ${run.stderr}`);
        codes.push(run.code);
      }
      return codes;
    }),
  );
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  const response = await fetch(`${server.url}/inventory/1`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  const final = (await response.json()).quantity;
  await server.stop();
  const codes = outcomes.flat();
  const acknowledged = codes.filter((code) => code === 0).length;
  const gaveUp = codes.length - acknowledged;
  const lost = start - acknowledged - final;
  if (lost !== 0) throw new Error(`adjust lost ${lost} changes (final ${final})`);
  figures.push({
    what: `inventory adjust -1 from ${workers} parallel processes on one pet, ${workers * runs} runs`,
    shown: `${fmt(acknowledged / seconds)} changes/s (each run a whole CLI process), ${acknowledged} acknowledged, ${gaveUp} gave up (exit 8, nothing changed), 0 lost`,
  });
}

/** The hand-written part of BENCHMARKS.md, from its "## Notes" heading on: kept across runs. */
function notes() {
  const path = join(root, "BENCHMARKS.md");
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const at = text.indexOf("\n## Notes");
  return at === -1 ? "" : `\n${text.slice(at + 1)}`;
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
    `- Load: autocannon, ${CONNECTIONS} connections, ${DURATION} s per round, ${ROUNDS} rounds after a 1 s warm-up; CLI: ${CLI_RUNS} pairs each`,
    `- Placement: ${pinned ? "servers on core 1, the load generator and PostgreSQL on core 0, CLI commands on every core (taskset)" : "not pinned"}`,
    "- Servers run in a clean environment (PATH and our variables only), as a service manager starts them.",
    "- Our server logs every request (info level) as in production; it is started on a database",
    "  already holding the pets, as a long-running server is (seeding is a one-off, done before).",
    "",
    "## Targets",
    "",
    "| what | measured | target | met |",
    "|---|---|---|---|",
    ...targets.map((t) => {
      const measured = t.ratio ?? t.value;
      const met = t.atLeast ? measured >= t.target : measured <= t.target;
      const unit = t.ratio === undefined ? "" : " ×";
      return `| ${t.what} | ${measured.toFixed(2)}${unit} | ${t.atLeast ? "≥" : "≤"} ${t.target}${unit} | ${met ? "yes" : "**no**"} |`;
    }),
    "",
    "## Server",
    "",
    "Server CPU is the user + system time the server process spent per request: unlike requests/s",
    "it does not depend on how fast the load generator can go.",
    "",
    "| scenario | server | requests/s (spread) | p50 ms | p99 ms | errors | server CPU µs/request |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const row of rows) {
    for (const [who, runs] of [
      ["ours", row.ours],
      [row.referenceName, row.reference],
    ]) {
      const rps = runs.map((r) => r.rps);
      lines.push(
        `| ${row.name} | ${who} | ${fmt(median(rps))} (${spread(rps)}) | ${median(runs.map((r) => r.p50))} | ${median(runs.map((r) => r.p99))} | ${runs.reduce((n, r) => n + r.errors, 0)} | ${fmt(median(runs.map((r) => r.cpuUsPerRequest)))} |`,
      );
    }
    lines.push(
      `| | ratio ours / reference | ${ratioOf(row).toFixed(2)} × | | | | ${ratioOf(row, "cpuUsPerRequest").toFixed(2)} × |`,
    );
  }
  lines.push(
    "",
    "## CLI",
    "",
    "Each command runs in a clean environment (`env -i PATH=… PETSTORE_API_KEY=…`), ours and the",
    "reference alternating; the ratio is the median of the ratios of the pairs.",
    "",
    "| command | ours ms (spread) | reference | reference ms (spread) | ratio |",
    "|---|---|---|---|---|",
  );
  for (const row of cliRows) {
    lines.push(
      `| ${row.name} | ${fmt(median(row.ours))} (${spread(row.ours)}) | ${row.referenceName} | ${fmt(median(row.reference))} (${spread(row.reference)}) | ${median(row.ratios).toFixed(2)} × |`,
    );
  }
  lines.push("", "## Other figures", "", "| what | measured |", "|---|---|");
  for (const figure of figures) lines.push(`| ${figure.what} | ${figure.shown} |`);
  lines.push("");
  // A partial run (BENCH_ONLY) prints its figures but leaves BENCHMARKS.md as it was.
  if (only === undefined) {
    writeFileSync(join(root, "BENCHMARKS.md"), lines.join("\n") + notes());
  }
  process.stdout.write(lines.join("\n"));
}

/** The batch rows (bench/batch.js), with the helpers they share with the others. */
const runBatchBenchmarks = () =>
  batchBenchmarks({
    ...{ bin, dir, join, env, key: KEY, pinned, rounds: ROUNDS, onEveryCore },
    ...{ seededDb, startOurs, startProcess, writeSeed, targets, figures },
    ...{ log, median, fmt, spread },
  });

/** The count rows (bench/count.js): `inventory count` posting, and count batches vs sets. */
const runCountBenchmarks = () =>
  countBenchmarks({
    ...{ bin, dir, join, env, key: KEY, pinned, rounds: ROUNDS, onEveryCore },
    ...{ seededDb, startOurs, startProcess, writeSeed, targets, figures },
    ...{ log, median, fmt, spread },
  });

/** The change feed rows (bench/feed.js), with the helpers they share with the others. */
const runFeedBenchmarks = () =>
  feedBenchmarks({
    ...{ bin, key: KEY, pinned, rounds: ROUNDS, seededDb, startOurs, startProcess, writeSeed },
    ...{ targets, figures, log, median, fmt, spread, load, compareAtLeast, patchRequests },
  });

/** The metrics rows (bench/metrics.js): GET and PATCH with metrics on against off. */
const runMetricsBenchmarks = () =>
  metricsBenchmarks({
    ...{ bin, startProcess, seededDb, startOurs, load, compareAtLeast, patchRequests },
    ...{ figures, log },
  });

/** The PostgreSQL rows (bench/postgres.js), with the helpers they share with the others. */
const runPostgresBenchmarks = () =>
  postgresBenchmarks({
    ...{ bin, root, dir, key: KEY, pinned, pets: 1000, rounds: ROUNDS },
    ...{ join, writeSeed, writeFile: writeFileSync, startProcess, load, compare, compareAtLeast },
    ...{ patchRequests, figures, log, median, fmt, spread },
  });

/** The TLS rows (bench/tls.js): GET and PATCH over HTTPS against plain HTTP, and the CLI's. */
const runTlsBenchmarks = () =>
  tlsBenchmarks({
    ...{ bin, dir, join, key: KEY, connections: CONNECTIONS, duration: DURATION },
    ...{ seededDb, startProcess, load, compare, patchRequests, timeCommands, cleanEnv },
    ...{ figures, log, median, fmt, spread },
  });

// BENCH_ONLY=server runs the server benchmarks alone (the CLI ones take minutes);
// BENCH_ONLY=cli the CLI start-up rows alone; BENCH_ONLY=adjust the adjust figure alone;
// BENCH_ONLY=feed the change feed rows (walking it, PATCH beside a follower) alone;
// BENCH_ONLY=batch the batch rows (apply, adjust --file, one batch of sets) and the count
// rows alone; BENCH_ONLY=count the count rows (inventory count, count batches vs sets) alone;
// BENCH_ONLY=postgres the PostgreSQL rows alone; BENCH_ONLY=history PATCH before and after
// history was kept; BENCH_ONLY=memory the server's RSS under sustained idempotent writes;
// BENCH_ONLY=metrics GET and PATCH with metrics on against off; BENCH_ONLY=tls GET and PATCH
// over HTTPS against plain HTTP, and `inventory get` over https against http.
const only = process.env.BENCH_ONLY;
try {
  if (only === "adjust") {
    await adjustBenchmark();
  } else if (only === "batch") {
    await runBatchBenchmarks();
    await runCountBenchmarks();
  } else if (only === "count") {
    await runCountBenchmarks();
  } else if (only === "feed") {
    await runFeedBenchmarks();
  } else if (only === "postgres") {
    await runPostgresBenchmarks();
  } else if (only === "cli") {
    await cliBenchmarks();
  } else if (only === "history") {
    await historyBenchmark();
  } else if (only === "memory") {
    await memoryBenchmark();
  } else if (only === "metrics") {
    await runMetricsBenchmarks();
  } else if (only === "tls") {
    await runTlsBenchmarks();
  } else {
    await serverBenchmarks();
  }
  if (only === undefined) {
    await runMetricsBenchmarks();
    await runTlsBenchmarks();
    await historyBenchmark();
    await memoryBenchmark();
    await runPostgresBenchmarks();
    await cliBenchmarks();
    await runBatchBenchmarks();
    await runCountBenchmarks();
    await runFeedBenchmarks();
    await adjustBenchmark();
  }
  report();
} finally {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
}
