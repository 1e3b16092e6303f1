#!/usr/bin/env node
// The CLI is the bundle in dist/, which a clone has only after `npm run build`.
const entry = new URL("../dist/cli.js", import.meta.url);
try {
  await import(entry.href);
} catch (error) {
  // Only a missing entry means "not built"; anything else is the CLI's own failure.
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || error.url !== entry.href) throw error;
  process.stderr.write("petstore: dist/cli.js is missing: run `npm run build` first\n");
  process.exitCode = 1;
}
