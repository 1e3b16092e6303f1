import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SeedError, loadSeed, parseSeed } from "../../src/server/seed.js";
import { tempDir } from "./fixture.js";

describe("parseSeed", () => {
  it("reads pets with int64 ids exactly, optional fields defaulted", () => {
    const pets = parseSeed(
      '\uFEFF[{"petId": 9223372036854775807, "name": "Max", "status": "pending", "quantity": 4},' +
        '{"petId": 2, "name": "Tom", "status": "sold", "quantity": 0, "category": {"id": 1, "name": "Cats"},' +
        ' "photoUrls": ["a.png"], "tags": [{"id": 3, "name": "cat"}]}]',
    );
    expect(pets).toEqual([
      {
        id: 9223372036854775807n,
        name: "Max",
        status: "pending",
        quantity: 4,
        photoUrls: [],
        tags: [],
      },
      {
        id: 2n,
        name: "Tom",
        status: "sold",
        quantity: 0,
        category: { id: 1n, name: "Cats" },
        photoUrls: ["a.png"],
        tags: [{ id: 3n, name: "cat" }],
      },
    ]);
  });

  it.each([
    ["not JSON", "[{", /not valid JSON/],
    ["not an array", '{"petId": 1}', /expected a JSON array/],
    ["an entry that is not an object", "[1]", /entry 1: expected an object/],
    [
      "a missing petId",
      '[{"name": "A", "status": "sold", "quantity": 1}]',
      /entry 1: petId must be/,
    ],
    [
      "a string petId",
      '[{"petId": "1", "name": "A", "status": "sold", "quantity": 1}]',
      /petId must be/,
    ],
    ["petId 0", '[{"petId": 0, "name": "A", "status": "sold", "quantity": 1}]', /petId must be/],
    [
      "a petId above int64",
      '[{"petId": 9223372036854775808, "name": "A", "status": "sold", "quantity": 1}]',
      /petId must be/,
    ],
    [
      "an empty name",
      '[{"petId": 1, "name": " ", "status": "sold", "quantity": 1}]',
      /name must be/,
    ],
    [
      "an unknown status",
      '[{"petId": 1, "name": "A", "status": "lost", "quantity": 1}]',
      /status must be one of/,
    ],
    [
      "a negative quantity",
      '[{"petId": 1, "name": "A", "status": "sold", "quantity": -1}]',
      /quantity must be/,
    ],
    [
      "a fractional quantity",
      '[{"petId": 1, "name": "A", "status": "sold", "quantity": 1.5}]',
      /quantity must be/,
    ],
    [
      "an unknown field",
      '[{"petId": 1, "name": "A", "status": "sold", "quantity": 1, "qty": 2}]',
      /unknown field "qty"/,
    ],
    [
      "a bad tag",
      '[{"petId": 1, "name": "A", "status": "sold", "quantity": 1, "tags": ["x"]}]',
      /tags must be/,
    ],
    [
      "a duplicate petId",
      '[{"petId": 1, "name": "A", "status": "sold", "quantity": 1}, {"petId": 1, "name": "B", "status": "sold", "quantity": 1}]',
      /entry 2: duplicate petId 1/,
    ],
  ])("rejects %s", (_what, text, message) => {
    expect(() => parseSeed(text)).toThrow(message);
  });
});

describe("loadSeed", () => {
  it("names the file in its errors", async () => {
    const temp = tempDir();
    const file = join(temp.dir, "pets.json");
    writeFileSync(file, "[1]");
    await expect(loadSeed(file)).rejects.toThrow(
      new SeedError(`seed file ${file}: entry 1: expected an object`),
    );
    await expect(loadSeed(join(temp.dir, "missing.json"))).rejects.toThrow(
      new SeedError(
        `cannot read seed file ${join(temp.dir, "missing.json")}: no such file or directory`,
      ),
    );
    temp.remove();
  });
});
