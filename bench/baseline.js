// An earlier commit of this repository, built in a temporary folder, for rows that compare a
// change with the figure before it in the same run (same machine, same moment).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * A node_modules for the commit at `target`: every package of this checkout's, linked, and the
 * ones the commit needs that this checkout no longer has (a dependency removed since),
 * installed from the registry beside them. Returns a reason when that cannot be done.
 */
function linkModules(root, target) {
  const modules = join(target, "node_modules");
  mkdirSync(modules);
  const { dependencies = {} } = JSON.parse(readFileSync(join(target, "package.json"), "utf8"));
  const missing = Object.entries(dependencies).filter(
    ([name]) => !existsSync(join(root, "node_modules", name)),
  );
  const extra = join(target, ".baseline-extra");
  if (missing.length > 0) {
    const install = spawnSync(
      "npm",
      [
        "install",
        "--prefix",
        extra,
        "--no-save",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
      ].concat(missing.map(([name, range]) => `${name}@${range}`)),
      { encoding: "utf8" },
    );
    if (install.status !== 0) {
      return `installing ${missing.map(([name]) => name).join(", ")} failed: ${firstLine(install.stderr)}`;
    }
  }
  // The extra packages and their own dependencies first, then every package of this checkout.
  for (const from of [join(extra, "node_modules"), join(root, "node_modules")]) {
    if (!existsSync(from)) continue;
    for (const entry of readdirSync(from)) {
      if (!existsSync(join(modules, entry))) symlinkSync(join(from, entry), join(modules, entry));
    }
  }
  return undefined;
}

/** The first line of a tool's error output, for a one-line reason. */
function firstLine(text) {
  return (
    text
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? "no message"
  );
}

/**
 * Extracts `commit` into `dir/name`, gives it this checkout's packages (and any it needs that
 * this checkout no longer has) and builds it.
 * Returns the path of its bin/petstore.js, or a reason when that cannot be done (a shallow
 * clone without the commit, say).
 */
export function buildCommit(root, commit, dir, name) {
  const git = (...args) => spawnSync("git", ["-C", root, ...args], { encoding: "utf8" });
  if (git("cat-file", "-e", `${commit}^{commit}`).status !== 0) {
    return { reason: `commit ${commit} is not in this clone (a shallow clone?)` };
  }
  const target = join(dir, name);
  mkdirSync(target, { recursive: true });
  const archive = spawnSync(
    "sh",
    ["-c", 'git -C "$1" archive "$2" | tar -x -C "$3"', "sh", root, commit, target],
    { encoding: "utf8" },
  );
  if (archive.status !== 0) return { reason: `git archive ${commit} failed: ${archive.stderr}` };
  const unlinked = linkModules(root, target);
  if (unlinked) return { reason: unlinked };
  const build = spawnSync(process.execPath, ["scripts/build.js"], {
    cwd: target,
    encoding: "utf8",
  });
  if (build.status !== 0) {
    return { reason: `building ${commit} failed: ${firstLine(build.stderr)}` };
  }
  return { bin: join(target, "bin", "petstore.js") };
}
