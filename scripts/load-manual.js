// Loads src/manual/build-entry.ts for scripts/build.js (the man page) and scripts/docs-options.js
// (`npm run docs`). Node 20 cannot import TypeScript, so esbuild bundles it, with the commander
// program it documents, into a temporary file first. What the program imports lazily (the API
// client, the server) is left out as imports that never run: defining commands runs none.
import { build } from "esbuild";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "..");

/** The exports of src/manual/build-entry.ts. */
export async function loadManual() {
  const dir = await mkdtemp(join(tmpdir(), "petstore-manual-"));
  try {
    const bundle = join(dir, "manual.mjs");
    await build({
      absWorkingDir: root,
      entryPoints: [join(root, "src", "manual", "build-entry.ts")],
      outfile: bundle,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20.19",
      logLevel: "warning",
      banner: {
        // Bundled CommonJS dependencies (commander) call require() for Node built-ins.
        js: 'import { createRequire as __petstoreCreateRequire } from "node:module"; const require = __petstoreCreateRequire(import.meta.url);',
      },
      plugins: [
        {
          name: "lazy-imports-stay-out",
          setup(manual) {
            manual.onResolve({ filter: /.*/ }, (args) =>
              args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined,
            );
          },
        },
      ],
    });
    return await import(pathToFileURL(bundle).href);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
