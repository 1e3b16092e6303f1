import { describe, expect, it } from "vitest";
import { wrapped } from "../../src/text/wrap.js";

describe("wrapped", () => {
  it("breaks between words, and keeps text that fits as it is", () => {
    expect(wrapped("sold two to the family", 10)).toBe("sold two\nto the\nfamily");
    expect(wrapped("sold two", 8)).toBe("sold two");
    expect(wrapped("", 4)).toBe("");
  });

  it("gives the lines after the first their own width, a second paragraph included", () => {
    expect(wrapped("aaaaaaa bb cc", 10, 4)).toBe("aaaaaaa bb\ncc");
    expect(wrapped("aaaaaaa\nbbbbbbbbbb", 10, 4)).toBe("aaaaaaa\nbbbb\nbbbb\nbb");
  });

  it("cuts a word too long for a line after a separator where it has one, losing nothing", () => {
    expect(wrapped("till-3/2026-11-27/receipt-000123", 20)).toBe(
      "till-3/2026-11-27/\nreceipt-000123",
    );
    // No separator far enough along: between characters.
    expect(wrapped("abcdefghijkl", 5)).toBe("abcde\nfghij\nkl");
  });

  it("starts a word too long for any line in the room the line has, when it has some", () => {
    expect(wrapped("ref delivery-note/supplier-acme/2026-11-27/DN-998877", 36)).toBe(
      "ref delivery-note/supplier-acme/\n2026-11-27/DN-998877",
    );
    expect(wrapped("ref till-3/2026-11-27/receipt-1", 20)).toBe(
      "ref till-3/2026-11-\n27/receipt-1",
    );
    // A word that fits a line of its own goes there whole.
    expect(wrapped("ref till-3/2026-11-27", 20)).toBe("ref\ntill-3/2026-11-27");
  });

  it("never splits a character, even one wider than the line", () => {
    expect(wrapped("😀😀", 1)).toBe("😀\n😀");
    expect(wrapped("日本", 1)).toBe("日\n本");
    expect(wrapped("入荷した箱", 4)).toBe("入荷\nした\n箱");
  });
});
