import { describe, expect, it } from "vitest";
import { BASE_URL, HttpStubs, runFake } from "../fake-deps.js";

const PET =
  '{"id":42,"name":"Rex","status":"available","category":{"id":1,"name":"Dogs"},"photoUrls":["https://img.example/rex.jpg"],"tags":[{"id":3,"name":"friendly"}]}';
const DEPRECATED = {
  "content-type": "application/json",
  deprecation: "@1735689600",
  sunset: "Wed, 31 Dec 2025 23:59:59 GMT",
};

function petStubs(headers: Record<string, string> = DEPRECATED) {
  const stubs = new HttpStubs();
  stubs.on("GET", "/v1/pets/42").reply(200, PET, { headers });
  return stubs;
}

describe("pets get", () => {
  it("prints one tab-separated line when piped and warns once that the operation is deprecated", async () => {
    const result = await runFake(["pets", "get", "42"], { stubs: petStubs() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("42\tRex\tavailable\tDogs\tfriendly\thttps://img.example/rex.jpg\n");
    expect(result.stderr).toBe(
      `warning: the server marks GET ${BASE_URL}/pets/42 as deprecated since 2025-01-01; it stops working after 2025-12-31\n`,
    );
  });

  it("prints a field/value table on a terminal", async () => {
    const result = await runFake(["--no-color", "pets", "get", "42"], {
      stubs: petStubs(),
      isTTY: true,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/│ name +│ Rex +│/);
    expect(result.stdout).toMatch(/│ category +│ Dogs +│/);
  });

  it("prints the pet as JSON with --json", async () => {
    const result = await runFake(["pets", "get", "42", "--json"], { stubs: petStubs() });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(PET));
  });

  it("prints no warning when the response carries no deprecation headers", async () => {
    const result = await runFake(["pets", "get", "42"], {
      stubs: petStubs({ "content-type": "application/json" }),
    });
    expect(result).toMatchObject({ code: 0, stderr: "" });
  });

  it("rejects an invalid petId locally (exit 2)", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["pets", "get", "x1"], { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: invalid petId "x1"');
    expect(stubs.calls()).toEqual([]);
  });

  it("maps a 404 to exit 5", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", "/v1/pets/42")
      .reply(404, '{"code":"pet_not_found","message":"no pet with id 42","status":404}', {
        headers: DEPRECATED,
      });
    const result = await runFake(["pets", "get", "42"], { stubs });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain("warning: the server marks GET");
    expect(result.stderr).toContain("error: no pet with id 42 (pet_not_found, HTTP 404)\n");
  });
});
