/** Every relative link of README.md and docs/*.md reaches a file, and its #anchor a heading there. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const FILES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchors of a Markdown file's headings (outside code blocks). */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of readFileSync(join(ROOT, file), "utf8").split("\n")) {
    if (line.trimStart().startsWith("```")) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6} (.*)$/.exec(line);
    if (heading?.[1] === undefined) continue;
    const slug = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, "")
      .replaceAll(" ", "-");
    anchors.add(slug);
  }
  return anchors;
}

function linksOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? "")
    .filter((link) => !/^[a-z]+:/.test(link));
}

describe.each(FILES)("the links of %s", (file) => {
  it("reach files and headings that exist", () => {
    const broken: string[] = [];
    for (const link of linksOf(file)) {
      const [path = "", anchor] = link.split("#", 2);
      const target = path === "" ? file : normalize(join(dirname(file), path));
      if (!existsSync(join(ROOT, target))) broken.push(`${link}: no file ${target}`);
      else if (anchor !== undefined && target.endsWith(".md") && !anchorsOf(target).has(anchor)) {
        broken.push(`${link}: no heading #${anchor} in ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
