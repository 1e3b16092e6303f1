/** Files for fakes of the CLI's input: a readFile that reads from an object, not the disk. */

/** A readFile holding `files` (path → text); any other path fails as a missing file does (ENOENT). */
export function readFileFrom(
  files: Readonly<Record<string, string>> = {},
): (path: string) => Promise<string> {
  return (path) => {
    const text = files[path];
    return text === undefined
      ? Promise.reject(Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" }))
      : Promise.resolve(text);
  };
}
