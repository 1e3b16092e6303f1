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

  it("shows a server's control characters as U+FFFD in a table and a line, exactly in JSON", async () => {
    // A window-title sequence in the name, a colour in a tag, a bell in the category.
    const pet = {
      id: 42,
      name: "Rex\u001b]0;owned\u0007",
      status: "available",
      category: { id: 1, name: "Dogs\u0007" },
      photoUrls: ["https://img.example/rex.jpg\u009b2J"],
      tags: [{ id: 3, name: "\u001b[31mred" }],
    };
    const stubs = () => {
      const made = new HttpStubs();
      made.on("GET", "/v1/pets/42").reply(200, JSON.stringify(pet), {
        headers: { "content-type": "application/json" },
      });
      return made;
    };
    const line = await runFake(["pets", "get", "42"], { stubs: stubs() });
    expect(line).toMatchObject({ code: 0, stderr: "" });
    expect(line.stdout).toBe(
      "42\tRex\uFFFD]0;owned\uFFFD\tavailable\tDogs\uFFFD\t\uFFFD[31mred\thttps://img.example/rex.jpg\uFFFD2J\n",
    );
    const table = await runFake(["--no-color", "pets", "get", "42"], {
      stubs: stubs(),
      isTTY: true,
    });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/│ name +│ Rex\uFFFD\]0;owned\uFFFD +│/);
    expect(table.stdout.replaceAll("\n", "")).not.toMatch(/\p{Cc}/u);
    const json = await runFake(["pets", "get", "42", "--json"], { stubs: stubs() });
    expect(JSON.parse(json.stdout)).toEqual(pet);
  });

  it("shows control characters in a server's error message as U+FFFD", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", "/v1/pets/42").reply(
      404,
      JSON.stringify({
        code: "not_found",
        message: "no pet 42\u001b[2J\u001b]0;x\u0007",
        status: 404,
      }),
      { headers: { "content-type": "application/json" } },
    );
    const result = await runFake(["pets", "get", "42"], { stubs });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      /^error: no pet 42\uFFFD\[2J\uFFFD\]0;x\uFFFD \(not_found, HTTP 404\)\n/,
    );
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
