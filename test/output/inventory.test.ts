import { describe, expect, it } from "vitest";
import type { InventoryItem } from "../../src/api/types.js";
import { chooseFormat } from "../../src/output/format.js";
import { inventoryTotals, writeInventoryList } from "../../src/output/inventory.js";
import { csvLine, tsvLine } from "../../src/output/delimited.js";
import { captureIo } from "../support/capture-io.js";

const ITEMS: InventoryItem[] = [
  { petId: 1n, quantity: 2147483647, status: "available" },
  { petId: 9223372036854775807n, quantity: 2147483647, status: "available" },
  { petId: 3n, quantity: 1, status: "sold" },
];

describe("inventory output", () => {
  it("sums totals exactly, beyond 32 bits", () => {
    expect(inventoryTotals(ITEMS)).toBe(
      "3 pets, 4294967295 in stock (available 4294967294, pending 0, sold 1)\n",
    );
    expect(inventoryTotals([])).toBe("0 pets, 0 in stock (available 0, pending 0, sold 0)\n");
  });

  it("writes an empty table with a zero totals line", () => {
    const { streams, out } = captureIo(true);
    writeInventoryList([], "table", streams);
    expect(out()).toContain("petId");
    expect(out()).toContain("0 pets, 0 in stock");
  });

  it("writes an empty JSON array and no TSV lines for an empty inventory", () => {
    const json = captureIo(false);
    writeInventoryList([], "json", json.streams);
    expect(json.out()).toBe("[]\n");
    const tsv = captureIo(false);
    writeInventoryList([], "tsv", tsv.streams);
    expect(tsv.out()).toBe("");
  });
});

describe("chooseFormat", () => {
  it("picks table on a terminal, tsv when piped, and the flag when given", () => {
    expect(chooseFormat({}, { isTTY: true })).toBe("table");
    expect(chooseFormat({}, { isTTY: false })).toBe("tsv");
    expect(chooseFormat({ json: true }, { isTTY: true })).toBe("json");
    expect(chooseFormat({ csv: true }, { isTTY: true })).toBe("csv");
    expect(() => chooseFormat({ json: true, csv: true }, { isTTY: true })).toThrow(
      "--json and --csv cannot be used together",
    );
  });
});

describe("delimited lines", () => {
  it("quotes CSV fields that need it", () => {
    expect(csvLine(["a", 'say "hi"', "x,y", 1n, 2])).toBe('a,"say ""hi""","x,y",1,2\n');
  });

  it("keeps each TSV record on one line", () => {
    expect(tsvLine(["a\tb", "c\nd", true])).toBe("a b\tc d\ttrue\n");
  });
});
