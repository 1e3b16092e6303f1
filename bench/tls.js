// The TLS rows of `npm run bench` (BENCH_ONLY=tls runs them alone; issue 34): GET and PATCH
// over HTTPS against plain HTTP on the same server, that is the same build started twice on
// two copies of one seed, `--tls-cert`/`--tls-key` the only difference. Keep-alive
// connections, as the CLI's batches use them: each of autocannon's connections shakes hands
// once per round, so the rows show what TLS costs per request (encryption, framing), not per
// connection. Rounds interleaved, medians with the spread; no target, so figures. And one
// figure a user feels: `petstore inventory get 1` over https against http, a whole process each.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { get } from "node:https";

/** Seconds per round: short, to keep the section near a minute (BENCH_DURATION if shorter). */
const SECONDS = 2;

/** Runs `openssl args` in `cwd`; throws with its stderr when it fails. */
function openssl(cwd, args) {
  const result = spawnSync("openssl", args, { cwd, encoding: "utf8" });
  if (result.error) throw new Error(`openssl: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
}

/**
 * A private CA and a leaf certificate for 127.0.0.1 it signed, EC P-256 both (as a current
 * public certificate is), in `dir`: the server is given the leaf and its key, a client the CA.
 */
function makeCertificates(dir, join) {
  const p256 = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(dir, [
    "req",
    "-x509",
    ...p256,
    ...["-keyout", "tls-ca.key", "-out", "tls-ca.pem", "-days", "2"],
    ...["-subj", "/CN=petstore bench CA"],
    ...["-addext", "basicConstraints=critical,CA:TRUE"],
    ...["-addext", "keyUsage=critical,keyCertSign,cRLSign"],
  ]);
  openssl(dir, [
    "req",
    ...p256,
    ...["-keyout", "tls-leaf.key", "-out", "tls-leaf.csr", "-subj", "/CN=127.0.0.1"],
  ]);
  const extensions = join(dir, "tls-leaf.ext");
  writeFileSync(
    extensions,
    [
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "basicConstraints=critical,CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=serverAuth",
      "",
    ].join("\n"),
  );
  openssl(dir, [
    "x509",
    "-req",
    ...["-in", "tls-leaf.csr", "-CA", "tls-ca.pem", "-CAkey", "tls-ca.key", "-CAcreateserial"],
    ...["-out", "tls-leaf.pem", "-days", "2", "-extfile", extensions],
  ]);
  return {
    ca: join(dir, "tls-ca.pem"),
    cert: join(dir, "tls-leaf.pem"),
    key: join(dir, "tls-leaf.key"),
  };
}

/**
 * GET `url` trusting only `ca`, as a client with NODE_EXTRA_CA_CERTS would: the HTTPS server
 * answers 200 with a certificate that verifies for 127.0.0.1. Resolves with the body's length
 * and the protocol and cipher negotiated (a Node.js client's defaults, as autocannon's are).
 */
function checkedGet(url, ca, key) {
  return new Promise((resolve, reject) => {
    const request = get(url, { ca, headers: { authorization: `Bearer ${key}` } }, (response) => {
      const tls = `${response.socket.getProtocol()}, ${response.socket.getCipher().name}`;
      let length = 0;
      response.on("data", (chunk) => (length += chunk.length));
      response.on("end", () =>
        response.statusCode === 200
          ? resolve({ length, tls })
          : reject(new Error(`GET ${url}: ${response.statusCode}`)),
      );
    });
    request.on("error", reject);
  });
}

export async function tlsBenchmarks(tools) {
  const { bin, dir, join, key, seededDb, startProcess, load, compare, patchRequests } = tools;
  const { figures, log, median, fmt, spread, timeCommands, cleanEnv } = tools;
  const pets = 1000;
  const seconds = Math.min(SECONDS, tools.duration);
  const files = makeCertificates(dir, join);
  const ca = readFileSync(files.ca);
  const serve = async (name, tls) =>
    startProcess([
      bin,
      "serve",
      "--port",
      "0",
      "--db",
      await seededDb(name, pets),
      ...(tls ? ["--tls-cert", files.cert, "--tls-key", files.key] : []),
    ]);

  // autocannon always connects with rejectUnauthorized: false (lib/httpClient.js: its
  // tlsOptions cannot turn verification on), so the load generator skips checking the chain,
  // which a client does once per connection (ten per round here); checkedGet checks it before
  // the load, and the CLI figure below includes it.
  const rows = [
    { kind: "GET", path: "/v1/inventory", options: {} },
    { kind: "PATCH", path: "/", options: { requests: patchRequests(pets) } },
  ];
  for (const row of rows) {
    const plain = await serve(`tls-plain-${row.kind}.db`, false);
    const secure = await serve(`tls-secure-${row.kind}.db`, true);
    if (!secure.url.startsWith("https://")) {
      throw new Error(`the TLS server printed ${secure.url}, not an https URL`);
    }
    const checked = await checkedGet(`${secure.url}/inventory`, ca, key);
    const name =
      row.kind === "GET"
        ? `GET /v1/inventory, ${pets.toLocaleString("en-US")} pets (${Math.round(checked.length / 1024)} KiB)`
        : `PATCH /v1/inventory/{random of ${pets.toLocaleString("en-US")}}`;
    // The load generator's own CPU, in % of one core (it runs on one): TLS costs the client
    // too, and a client near 100% caps requests/s, when the server's CPU per request does not.
    const round = async (server, more) => {
      const [started, cpu] = [performance.now(), process.cpuUsage()];
      const result = await load(server, row.path, { ...row.options, duration: seconds, ...more });
      const used = process.cpuUsage(cpu);
      const clientCpu = (used.user + used.system) / 10 / (performance.now() - started);
      return { ...result, clientCpu };
    };
    const measured = await compare(
      `${name} over TLS`,
      "plain HTTP",
      (more) => round(secure, more),
      (more) => round(plain, more),
    );
    await secure.stop();
    await plain.stop();
    const of = (runs, field) => runs.map((run) => run[field]);
    const ratio = (field) =>
      median(of(measured.ours, field)) / median(of(measured.reference, field));
    const side = (runs) =>
      `${fmt(median(of(runs, "rps")))} requests/s (${spread(of(runs, "rps"))}), ` +
      `p99 ${median(of(runs, "p99"))} ms, ${fmt(median(of(runs, "cpuUsPerRequest")))} µs server CPU/request, ` +
      `load generator ${Math.round(median(of(runs, "clientCpu")))}% of a core, ` +
      `${runs.reduce((n, run) => n + run.errors, 0)} errors`;
    figures.push({
      what: `${name}, HTTPS (${checked.tls}, EC P-256 certificate; keep-alive, ${tools.connections} connections) vs plain HTTP, same build and seed, ${measured.ours.length} rounds of ${seconds} s interleaved`,
      shown:
        `HTTPS ${side(measured.ours)}; plain ${side(measured.reference)}; ` +
        `HTTPS/plain ${ratio("rps").toFixed(2)} × requests/s, ${ratio("cpuUsPerRequest").toFixed(2)} × server CPU/request`,
    });
  }

  // A user's command: one process, one connection, the handshake and certificate check
  // included. NODE_EXTRA_CA_CERTS (the CA, so the CLI trusts the server) costs Node start-up
  // time itself, so the plain-HTTP runs get it too: the ratio is TLS's cost alone.
  const plain = await serve("tls-cli-plain.db", false);
  const secure = await serve("tls-cli-secure.db", true);
  const command = (url) => [bin, "--base-url", url, "inventory", "get", "1"];
  const options = { env: { ...cleanEnv, NODE_EXTRA_CA_CERTS: files.ca } };
  log("petstore inventory get 1, https vs http");
  const cli = timeCommands("get, https", "http", command(secure.url), command(plain.url), options);
  await secure.stop();
  await plain.stop();
  figures.push({
    what: `petstore inventory get 1 over https vs http (a whole process; NODE_EXTRA_CA_CERTS naming the bench's CA set for both), ${cli.ours.length} pairs`,
    shown: `https ${fmt(median(cli.ours))} ms (${spread(cli.ours)}); http ${fmt(median(cli.reference))} ms (${spread(cli.reference)}); median pair ratio https/http ${median(cli.ratios).toFixed(2)} ×`,
  });
}
