/** The Markdown guides whose option blocks `npm run docs` writes: README.md and docs/*.md. */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Their paths relative to the project `root`, README.md first, then docs/ by name. */
export function guideFiles(root: string): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs];
}
