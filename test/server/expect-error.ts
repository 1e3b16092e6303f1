/** Asserts that a response is the decided Error body with the given status and code. */
import type { LightMyRequestResponse } from "fastify";
import { expect } from "vitest";

export function expectError(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  const body = response.json<Record<string, unknown>>();
  expect(Object.keys(body).sort()).toEqual(["code", "message", "status"]);
  expect(body).toMatchObject({ code, status });
  expect(typeof body.message).toBe("string");
  expect(body.message).not.toBe("");
  expect(response.body).not.toMatch(/\bat .+:\d+:\d+/); // no stack trace
}
