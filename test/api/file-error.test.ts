import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fileErrorReason } from "../../src/api/file-error.js";

/** The error Node.js throws reading `path`. */
function readError(path: string): unknown {
  try {
    readFileSync(path);
  } catch (error) {
    return error;
  }
  throw new Error(`${path} was read`);
}

describe("fileErrorReason", () => {
  it("says a known failure in words, without the code or the path", () => {
    expect(fileErrorReason(readError("/no/such/file"))).toBe("no such file or directory");
    expect(fileErrorReason(readError("/"))).toBe("it is a directory");
    expect(fileErrorReason(readError(`${import.meta.filename}/below`))).toBe(
      "a part of the path is not a directory",
    );
  });

  it("keeps Node.js's words for another code, with the code after them", () => {
    const error = Object.assign(new Error("EIO: i/o error, write"), { code: "EIO" });
    expect(fileErrorReason(error)).toBe("i/o error (EIO)");
    const withPath = Object.assign(new Error("EMFILE: too many open files, open '/etc/x'"), {
      code: "EMFILE",
    });
    expect(fileErrorReason(withPath)).toBe("too many open files (EMFILE)");
  });

  it("keeps the message of an error without a code", () => {
    expect(fileErrorReason(new Error("the disk said no"))).toBe("the disk said no");
    expect(fileErrorReason("a string")).toBe("a string");
  });
});
