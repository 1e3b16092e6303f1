/**
 * The metrics: the names and labels docs/operating.md gives, changes counted as applied, and no label
 * that grows with the traffic (no pet id, no key, no key's name).
 */
import { describe, expect, it } from "vitest";
import { ServerMetrics } from "../../src/server/metrics.js";
import { API_KEY, AUTH, createTestApp } from "./fixture.js";

function newMetrics(storeUp = true): ServerMetrics {
  return new ServerMetrics(
    { storeAnswers: () => Promise.resolve(storeUp), keysLoaded: () => 3 },
    Date.UTC(2026, 10, 25) + 500,
  );
}

async function exposition(metrics: ServerMetrics): Promise<string> {
  return (await metrics.exposition()).text;
}

/** The value of one sample line, `name{labels} value`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("the server's metrics", () => {
  it("exposes every metric docs/operating.md names, with prom-client's process and Node.js metrics", async () => {
    const text = await exposition(newMetrics());
    for (const name of [
      "http_request_duration_seconds",
      "petstore_inventory_changes_total",
      "petstore_store_up",
      "petstore_api_keys_loaded",
      "petstore_keys_last_reload_successful",
      "petstore_keys_last_reload_success_timestamp_seconds",
      "petstore_build_info",
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
      "nodejs_heap_size_used_bytes",
    ]) {
      expect(text, name).toContain(`# TYPE ${name} `);
    }
    expect(text).toContain("# TYPE http_request_duration_seconds histogram");
    expect(sample(text, "petstore_store_up")).toBe(1);
    expect(sample(text, "petstore_api_keys_loaded")).toBe(3);
    expect(sample(text, "petstore_keys_last_reload_successful")).toBe(1);
    expect(sample(text, "petstore_keys_last_reload_success_timestamp_seconds")).toBe(
      Date.UTC(2026, 10, 25) / 1000 + 0.5,
    );
    expect(text).toMatch(/^petstore_build_info\{version="\d+\.\d+\.\d+[^"]*"\} 1$/m);
    expect(sample(text, 'petstore_keys_reloads_total{result="failure"}')).toBe(0);
  });

  it("says 0 for a store that does not answer", async () => {
    expect(sample(await exposition(newMetrics(false)), "petstore_store_up")).toBe(0);
  });

  it("records a refused and then a good reload", async () => {
    const metrics = newMetrics();
    metrics.keysReloaded({ ok: false });
    let text = await exposition(metrics);
    expect(sample(text, "petstore_keys_last_reload_successful")).toBe(0);
    expect(sample(text, 'petstore_keys_reloads_total{result="failure"}')).toBe(1);
    metrics.keysReloaded({ ok: true, at: 1_800_000_000_000 });
    text = await exposition(metrics);
    expect(sample(text, "petstore_keys_last_reload_successful")).toBe(1);
    expect(sample(text, "petstore_keys_last_reload_success_timestamp_seconds")).toBe(1_800_000_000);
    expect(sample(text, 'petstore_keys_reloads_total{result="success"}')).toBe(1);
  });

  it("labels requests by method, route template and status, with one label for unknown routes", async () => {
    const metrics = newMetrics();
    const t = await createTestApp({ metrics });
    for (let petId = 1; petId <= 300; petId++) {
      await t.app.inject({ url: `/v1/inventory/${petId}`, headers: AUTH });
      await t.app.inject({ url: `/no/such/${petId}` });
      await t.app.inject({ url: `/v1/no-such-${petId}`, headers: AUTH });
    }
    const text = await exposition(metrics);
    const series = text
      .split("\n")
      .filter((line) => line.startsWith("http_request_duration_seconds_count"));
    expect(series.sort()).toEqual([
      'http_request_duration_seconds_count{method="GET",route="(unknown)",status_code="404"} 600',
      'http_request_duration_seconds_count{method="GET",route="/v1/inventory/:petId",status_code="200"} 2',
      'http_request_duration_seconds_count{method="GET",route="/v1/inventory/:petId",status_code="404"} 298',
    ]);
    // Neither a pet id nor a key, nor a key's name, is ever a label.
    expect(text).not.toContain('"300"');
    expect(text).not.toContain("tester");
    expect(text).not.toContain(API_KEY);
    await t.close();
  });

  it("counts the changes applied: a PATCH that wrote, a batch's changed entries; not replays, failures, dry runs or rejected batches", async () => {
    const metrics = newMetrics();
    const t = await createTestApp({ metrics });
    const changes = async () =>
      sample(await exposition(metrics), "petstore_inventory_changes_total");
    const patch = (petId: string, quantity: number, key?: string) =>
      t.app.inject({
        method: "PATCH",
        url: `/v1/inventory/${petId}`,
        headers: { ...AUTH, ...(key ? { "idempotency-key": key } : {}) },
        payload: { quantity },
      });
    const batch = (body: object) =>
      t.app.inject({ method: "POST", url: "/v1/inventory/batch", headers: AUTH, payload: body });

    expect(await changes()).toBe(0);
    expect((await patch("1", 7, "k-1")).statusCode).toBe(200);
    expect((await patch("1", 7, "k-1")).headers["idempotent-replayed"]).toBe("true");
    expect((await patch("404", 7)).statusCode).toBe(404);
    expect(await changes()).toBe(1);

    const twoChanged = [
      { petId: 1, delta: 1 },
      { petId: 2, quantity: 4 },
      { petId: 1, quantity: 8 },
      { petId: 404, delta: 1 },
    ];
    expect((await batch({ changes: twoChanged.slice(0, 2), dryRun: true })).statusCode).toBe(200);
    expect((await batch({ changes: twoChanged, atomic: true })).statusCode).toBe(409);
    expect(await changes()).toBe(1);
    const applied = await batch({ changes: twoChanged });
    expect(applied.json()).toMatchObject({ changed: 2, unchanged: 1, failed: 1 });
    expect(await changes()).toBe(3);
    await t.close();
  });
});
