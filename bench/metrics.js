// The metrics rows of `npm run bench` (BENCH_ONLY=metrics runs them alone): GET and PATCH
// throughput of a server with `--metrics-port` on (scraped once a second, more often than
// Prometheus's usual 15 s) against the same server with metrics off, rounds interleaved, each
// server on its own copy of one seeded database.

/** Scrapes `url` once a second until stopped; the scrapes' count and failures. */
function scraper(url) {
  let scrapes = 0;
  let failures = 0;
  const timer = setInterval(() => {
    fetch(url)
      .then(async (response) => {
        await response.text();
        if (response.ok) scrapes++;
        else failures++;
      })
      .catch(() => failures++);
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      return { scrapes, failures };
    },
  };
}

/** Starts our server on `db` with metrics on; its metrics URL from the line it prints. */
async function startWithMetrics(tools, db) {
  const server = await tools.startProcess([
    tools.bin,
    "serve",
    "--port",
    "0",
    "--db",
    db,
    "--metrics-port",
    "0",
  ]);
  for (let waited = 0; waited < 5000; waited += 20) {
    const match = /^metrics on (http:\/\/\S+)$/m.exec(server.stdout());
    if (match) return { server, metricsUrl: match[1] };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the server printed no metrics line");
}

export async function metricsBenchmarks(tools) {
  const { seededDb, startOurs, load, compareAtLeast, patchRequests, figures, log } = tools;
  const pets = 1000;
  for (const [kind, path, options] of [
    ["GET", "/v1/inventory", {}],
    ["PATCH", "/", { requests: patchRequests(pets) }],
  ]) {
    const off = await startOurs(await seededDb(`metrics-off-${kind}.db`, pets));
    const { server: on, metricsUrl } = await startWithMetrics(
      tools,
      await seededDb(`metrics-on-${kind}.db`, pets),
    );
    const scraping = scraper(metricsUrl);
    await compareAtLeast(
      `${kind} with metrics on, requests/s vs off`,
      0.95,
      `${kind} ${kind === "GET" ? path : "/v1/inventory/{random of 1,000}"}, metrics on (scraped every second)`,
      "the same, metrics off",
      (more) => load(on, path, { ...options, ...more }),
      (more) => load(off, path, { ...options, ...more }),
    );
    const { scrapes, failures } = scraping.stop();
    log(`${kind}: ${scrapes} scrapes, ${failures} failed`);
    figures.push({
      what: `metrics scrapes during the ${kind} rows`,
      shown: `${scrapes} scrapes, ${failures} failed`,
    });
    await on.stop();
    await off.stop();
  }
}
