import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createKeyChecker, loadApiKeys } from "../../src/server/api-keys.js";
import { tempDir } from "./fixture.js";

describe("loadApiKeys", () => {
  it("merges PETSTORE_API_KEYS and the keys file, trimming, deduplicating, skipping comments", async () => {
    const temp = tempDir();
    const file = join(temp.dir, "keys");
    writeFileSync(file, "# staff keys\nfile-key\r\n\n  shared \n");
    expect(await loadApiKeys(" env-key, shared,,", file)).toEqual([
      "env-key",
      "shared",
      "file-key",
    ]);
    temp.remove();
  });

  it("returns no key when nothing is configured", async () => {
    expect(await loadApiKeys(undefined)).toEqual([]);
    expect(await loadApiKeys(" , ")).toEqual([]);
  });

  it("reports an unreadable file without its contents", async () => {
    await expect(loadApiKeys(undefined, "/nonexistent/keys")).rejects.toThrow(
      "cannot read API keys file /nonexistent/keys: ENOENT",
    );
  });
});

describe("createKeyChecker", () => {
  it("accepts exactly the configured keys", () => {
    const isAccepted = createKeyChecker(["alpha", "beta"]);
    expect(isAccepted("alpha")).toBe(true);
    expect(isAccepted("beta")).toBe(true);
    expect(isAccepted("alph")).toBe(false);
    expect(isAccepted("alphaa")).toBe(false);
    expect(isAccepted("")).toBe(false);
  });
});
