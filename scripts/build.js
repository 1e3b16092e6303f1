// Bundles the CLI into dist/ so start-up loads one file. `serve` lives in a
// separate chunk loaded on demand, so client commands never load server code.
import { build } from "esbuild";
import { rm } from "node:fs/promises";
import { join } from "node:path";

await rm(join(import.meta.dirname, "..", "dist"), { recursive: true, force: true });

await build({
  entryPoints: { cli: "src/cli.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  // Native addon and the server framework stay in node_modules; both are only
  // reached from the lazily imported server chunk.
  external: ["better-sqlite3", "fastify"],
  banner: {
    // Bundled CommonJS dependencies call require() for Node built-ins.
    js: 'import { createRequire as __petstoreCreateRequire } from "node:module"; const require = __petstoreCreateRequire(import.meta.url);',
  },
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
});
