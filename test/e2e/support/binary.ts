/**
 * The built binary the end-to-end tests spawn (`npm run build` first), and the environment a
 * spawned child gets.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..", "..");
export const BIN = join(ROOT, "bin", "petstore.js");

export type Env = Record<string, string | undefined>;

/** Only what a child needs from this process: no PETSTORE_*, proxy or colour settings leak in. */
export function childEnv(): Env {
  return { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Throws unless dist/ exists and is newer than every file under src/. */
export function assertBuilt(): void {
  const bundle = join(ROOT, "dist", "cli.js");
  if (!existsSync(bundle)) throw new Error("dist/cli.js is missing: run `npm run build` first");
  if (newestMtime(join(ROOT, "src")) > statSync(bundle).mtimeMs) {
    throw new Error("dist/cli.js is older than src/: run `npm run build` first");
  }
}
