/** openapi/inventory.json is what `npm run openapi` writes from buildOpenApiDocument(). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../src/api/openapi.js";

const FILE = join(import.meta.dirname, "..", "..", "openapi", "inventory.json");

describe("openapi/inventory.json", () => {
  it("is up to date with buildOpenApiDocument() (else run `npm run openapi`)", async () => {
    const committed = readFileSync(FILE, "utf8");
    const generated = await format(JSON.stringify(buildOpenApiDocument()), {
      ...(await resolveConfig(FILE)),
      filepath: FILE,
    });
    expect(JSON.parse(committed)).toEqual(JSON.parse(generated));
    expect(committed).toBe(generated);
  });
});
