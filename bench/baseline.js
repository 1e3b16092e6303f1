// An earlier commit of this repository, built in a temporary folder, for rows that compare a
// change with the figure before it in the same run (same machine, same moment).
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * Extracts `commit` into `dir/name`, links this checkout's node_modules into it and builds it.
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
  symlinkSync(join(root, "node_modules"), join(target, "node_modules"));
  const build = spawnSync(process.execPath, ["scripts/build.js"], {
    cwd: target,
    encoding: "utf8",
  });
  if (build.status !== 0) return { reason: `building ${commit} failed: ${build.stderr}` };
  return { bin: join(target, "bin", "petstore.js") };
}
