#!/usr/bin/env node
// The executable. CommonJS (bin/package.json), because Node.js 20 starts a CommonJS entry
// without its ES module loader: `petstore --version`, which scripts and installers call most,
// is answered here from package.json (the version the build puts in dist/ too) in about the
// time of `node -e 0`. Everything else imports the CLI, the bundle in dist/, which a clone has
// only after `npm run build`.
"use strict";
const { existsSync } = require("node:fs");
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");

const entry = pathToFileURL(join(__dirname, "..", "dist", "cli.js"));
const notBuilt = () => {
  process.stderr.write("petstore: dist/cli.js is missing: run `npm run build` first\n");
  process.exitCode = 1;
};
const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === "--version") {
  if (existsSync(entry)) process.stdout.write(`${require("../package.json").version}\n`);
  else notBuilt();
} else {
  import(entry.href).catch((error) => {
    // Only a missing entry means "not built"; anything else is the CLI's own failure.
    if (error?.code !== "ERR_MODULE_NOT_FOUND" || error.url !== entry.href) throw error;
    notBuilt();
  });
}
