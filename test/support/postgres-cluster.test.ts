import pg from "pg";
import { expect, it } from "vitest";
import { startTestCluster } from "./postgres-cluster.js";

it("starts a socket-only cluster and leaves no exit hook behind (one would make vitest exit 0 on failures)", async () => {
  const events = ["exit", "beforeExit", "SIGINT", "SIGTERM", "SIGHUP"] as const;
  const counts = () => events.map((event) => process.listenerCount(event));
  const before = counts();
  const cluster = await startTestCluster();
  try {
    expect(counts()).toEqual(before);
    const client = new pg.Client({ connectionString: cluster.adminUrl });
    await client.connect();
    expect((await client.query("SHOW listen_addresses")).rows).toEqual([{ listen_addresses: "" }]);
    await client.end();
  } finally {
    await cluster.destroy();
  }
});
