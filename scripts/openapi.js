// Writes openapi/inventory.json from buildOpenApiDocument() in src/api/openapi.ts, the
// function the server serves /v1/openapi.json from. Node 20 cannot import TypeScript, so
// esbuild bundles that module to a temporary file first. test/api/openapi-file.test.ts
// fails when the committed file and the function disagree: rerun `npm run openapi`. It also
// writes the types a third-party generator makes of the document (openapi-client.js).
import { build } from "esbuild";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { format, resolveConfig } from "prettier";
import { CLIENT_PATHS_FILE, clientPathsSource } from "./openapi-client.js";

const root = join(import.meta.dirname, "..");
const output = join(root, "openapi", "inventory.json");

const dir = await mkdtemp(join(tmpdir(), "petstore-openapi-"));
try {
  const bundle = join(dir, "openapi.mjs");
  await build({
    entryPoints: [join(root, "src", "api", "openapi.ts")],
    outfile: bundle,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20.19",
    logLevel: "warning",
  });
  const { buildOpenApiDocument } = await import(pathToFileURL(bundle).href);
  // Formatted as Prettier formats JSON, so `prettier --check` accepts the generated file.
  const options = { ...(await resolveConfig(output)), filepath: output };
  const document = buildOpenApiDocument();
  const text = await format(JSON.stringify(document), options);
  await mkdir(join(root, "openapi"), { recursive: true });
  await writeFile(output, text);
  console.log(`wrote ${output}`);
  await writeFile(CLIENT_PATHS_FILE, await clientPathsSource(document));
  console.log(`wrote ${CLIENT_PATHS_FILE}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
