/**
 * A file system failure in words, for a message that names the file: "no such file or
 * directory", "permission denied", …; an error without a known code keeps its own message,
 * with the code beside it when it has one ("… (EIO)").
 */
export function fileErrorReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const words = code === undefined ? undefined : REASONS[code];
  if (words !== undefined) return words;
  const message = error instanceof Error ? error.message : String(error);
  if (code === undefined) return message;
  // Node's own text is "CODE: what, syscall 'path'": the words alone, the code after them.
  const match = /^[A-Z0-9]+: (.*?)(?:, [a-z]+(?: '.*')?)?$/.exec(message);
  return `${match?.[1] ?? message} (${code})`;
}

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "it is a directory",
  ENOTDIR: "a part of the path is not a directory",
  ENOSPC: "no space left on the device",
  EROFS: "the file system is read-only",
  ELOOP: "too many symbolic links",
  ENAMETOOLONG: "the name is too long",
};
