/**
 * `Inventory-Seq` on the inventory reads and writes of the API client: the seq the answer
 * holds as of, read from the header when the server sends a well-formed one, and undefined
 * otherwise (a server from before counts, or a replayed answer): never guessed.
 */
import { MockAgent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { MOCK_ORIGIN, mockClient } from "./mock-client.js";

const ORIGIN = MOCK_ORIGIN;

let agent: MockAgent;

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

function client() {
  agent = new MockAgent();
  return mockClient(agent, { retries: 0, idempotencyKey: () => "key-1" });
}

/** The headers of an answer: JSON, the ETag, and Inventory-Seq when given. */
function headers(seq: string | undefined): Record<string, string> {
  return {
    "content-type": "application/json",
    etag: '"4"',
    ...(seq === undefined ? {} : { "inventory-seq": seq }),
  };
}

const ENTRY = '{"petId":7,"quantity":4,"status":"available"}';

describe("Inventory-Seq on the client's inventory calls", () => {
  it.each([
    ["1042", 1042n],
    ["0", 0n],
    ["9223372036854775807", 9223372036854775807n],
    [undefined, undefined],
    ["", undefined],
    ["12a", undefined],
    ["+12", undefined],
    ["012", undefined],
  ])(
    "reads Inventory-Seq %j as %s on GET and PATCH of an entry and GET of the list",
    async (header, seq) => {
      const api = client();
      const pool = agent.get(ORIGIN);
      pool.intercept({ path: "/v1/inventory/7", method: "GET" }).reply(200, ENTRY, {
        headers: headers(header),
      });
      pool.intercept({ path: "/v1/inventory/7", method: "PATCH" }).reply(200, ENTRY, {
        headers: headers(header),
      });
      pool.intercept({ path: "/v1/inventory", method: "GET" }).reply(200, `[${ENTRY}]`, {
        headers: headers(header),
      });
      const item = { petId: 7n, quantity: 4, status: "available" };
      await expect(api.getInventoryItem(7n)).resolves.toEqual({ item, etag: '"4"', seq });
      await expect(api.updateInventory(7n, 4)).resolves.toEqual({ item, etag: '"4"', seq });
      await expect(api.listInventorySnapshot()).resolves.toEqual({ items: [item], seq });
    },
  );
});
