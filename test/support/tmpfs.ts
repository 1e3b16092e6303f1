/**
 * A real small file system for tests of a full disk: a tmpfs mounted in a temp directory
 * (Linux, as root), and a filler file that takes its last byte. Tests that need one skip
 * visibly where it cannot be mounted, naming why (`cannotMountTmpfs()`).
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Why a tmpfs cannot be mounted here, or undefined when a trial mount worked. */
export function cannotMountTmpfs(): string | undefined {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return "needs root";
  try {
    mountTmpfs("64k").unmount();
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return `mount failed: ${stderr || String(error)}`;
  }
}

/** A tmpfs of `size` (mount(8)'s notation: "2m") on a new temp directory. */
export function mountTmpfs(size: string): { dir: string; unmount: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "petstore-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    unmount: () => {
      execFileSync("umount", [dir], { stdio: "pipe" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the file system holding `path` with the file `path`, to the last byte it takes. */
export function fillFileSystem(path: string): void {
  const fd = openSync(path, "w");
  try {
    for (const size of [64 * 1024, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x2a);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}
