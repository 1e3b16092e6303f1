// Bundles the CLI into dist/. dist/cli.js, the entry, is one file that imports nothing of
// ours, so `petstore --version` loads two files (bin and entry) in all. Everything else starts
// at src/main.ts, bundled with code splitting: client commands never load server code, and
// `apply`, `completion`, `serve` and the HTTP client load their chunks only when they run.
// Last, the manual page dist/petstore.1, generated from the same commander program (so it is
// never older than the build it ships with; package.json's "man" installs it).
import { build } from "esbuild";
import { rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { loadManual } from "./load-manual.js";

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");

await rm(dist, { recursive: true, force: true });

const common = {
  absWorkingDir: root,
  outdir: "dist",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
};

const program = await build({
  ...common,
  entryPoints: { main: "src/main.ts" },
  splitting: true,
  entryNames: "chunks/[name]-[hash]",
  chunkNames: "chunks/[name]-[hash]",
  // Native addon and the server framework stay in node_modules; both are only
  // reached from the lazily imported server chunk.
  external: ["better-sqlite3", "fastify"],
  banner: {
    // Bundled CommonJS dependencies call require() for Node built-ins.
    js: 'import { createRequire as __petstoreCreateRequire } from "node:module"; const require = __petstoreCreateRequire(import.meta.url);',
  },
  metafile: true,
});

const [mainChunk] = Object.entries(program.metafile.outputs)
  .filter(([, output]) => output.entryPoint === "src/main.ts")
  .map(([path]) => `./${relative("dist", path)}`);
if (mainChunk === undefined) throw new Error("the build made no chunk for src/main.ts");

await build({
  ...common,
  entryPoints: { cli: "src/cli.ts" },
  plugins: [
    {
      // src/cli.ts imports ./main.js: in dist/ that is the chunk the build above wrote.
      name: "main-chunk",
      setup(entry) {
        entry.onResolve({ filter: /^\.\/main\.js$/ }, () => ({ path: mainChunk, external: true }));
      },
    },
  ],
});

// The page's date: SOURCE_DATE_EPOCH for a reproducible build, else today (UTC).
const sourceDate = process.env.SOURCE_DATE_EPOCH;
const today = sourceDate ? new Date(Number(sourceDate) * 1000) : new Date();
const date = today.toISOString().slice(0, 10);
const manual = await loadManual();
await writeFile(
  join(dist, "petstore.1"),
  manual.manPage(manual.documentedProgram(), { version: manual.VERSION, date }),
);
