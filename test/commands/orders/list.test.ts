import { describe, expect, it } from "vitest";
import { localTime } from "../../../src/text/local-time.js";
import { HttpStubs, json, runFake } from "../fake-deps.js";

const ORDERS =
  '[{"id":1,"petId":9223372036854775807,"quantity":2,"shipDate":"2025-05-01T10:00:00.000Z","status":"placed","complete":false},' +
  '{"id":2,"petId":42,"quantity":1,"shipDate":"2025-05-02T10:00:00.000Z","status":"delivered","complete":true}]';

function ordersStubs(body = ORDERS) {
  const stubs = new HttpStubs();
  stubs.on("GET", "/v1/store/orders").reply(200, body, json);
  return stubs;
}

describe("orders list", () => {
  it("prints one tab-separated line per order when piped", async () => {
    const result = await runFake(["orders", "list"], { stubs: ordersStubs() });
    expect(result).toMatchObject({
      code: 0,
      stdout:
        "1\t9223372036854775807\t2\t2025-05-01T10:00:00.000Z\tplaced\tfalse\n" +
        "2\t42\t1\t2025-05-02T10:00:00.000Z\tdelivered\ttrue\n",
      stderr: "",
    });
  });

  it("prints a table with a count on a terminal", async () => {
    const result = await runFake(["--no-color", "orders", "list"], {
      stubs: ordersStubs(),
      isTTY: true,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `│ +1 │ 9223372036854775807 │ +2 │ ${localTime("2025-05-01T10:00:00.000Z")} │ placed +│ no +│`,
      ),
    );
    expect(result.stdout).toContain("2 orders");
  });

  it("prints the orders as JSON with exact ids", async () => {
    const result = await runFake(["orders", "list", "--json"], { stubs: ordersStubs() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"petId": 9223372036854775807');
    expect(result.stdout).toContain('"complete": true');
  });

  it("rejects an order with an unknown status as a malformed response", async () => {
    const result = await runFake(["orders", "list"], {
      stubs: ordersStubs(ORDERS.replace('"placed"', '"lost"')),
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("[0].status is not one of placed, approved, delivered");
  });
});
