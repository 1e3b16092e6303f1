/** Printing a pet record. */
import type { Pet } from "../api/types.js";
import { printable } from "../text/printable.js";
import { tsvLine } from "./delimited.js";
import type { OutputFormat } from "./format.js";
import type { IoStreams } from "./io-streams.js";
import { toJson } from "./json.js";
import { styleStatus } from "./status-style.js";
import { renderTable } from "./table.js";

/** Prints a pet: a field/value table, one tab-separated line, or JSON. */
export function writePet(pet: Pet, format: Exclude<OutputFormat, "csv">, io: IoStreams): void {
  // What the server holds, as it is for JSON; safe for a terminal in the others.
  const name = printable(pet.name);
  const category = printable(pet.category?.name ?? "");
  const tags = pet.tags.map((tag) => printable(tag.name)).join(", ");
  const photoUrls = pet.photoUrls.map(printable);
  switch (format) {
    case "json":
      io.out.write(toJson(pet));
      return;
    case "tsv":
      io.out.write(tsvLine([pet.id, name, pet.status, category, tags, photoUrls.join(" ")]));
      return;
    case "table":
      io.out.write(
        renderTable(
          {
            head: ["field", "value"],
            rows: [
              ["id", pet.id.toString()],
              ["name", name],
              ["status", styleStatus(pet.status, io.style)],
              ["category", category],
              ["tags", tags],
              ["photoUrls", photoUrls.join("\n")],
            ],
            wrappable: [1],
            fields: true,
          },
          io,
        ),
      );
      return;
  }
}
