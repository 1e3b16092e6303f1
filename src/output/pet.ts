/** Printing a pet record. */
import type { Pet } from "../api/types.js";
import { tsvLine } from "./delimited.js";
import type { OutputFormat } from "./format.js";
import type { IoStreams } from "./io-streams.js";
import { toJson } from "./json.js";
import { styleStatus } from "./status-style.js";
import { renderTable } from "./table.js";

/** Prints a pet: a field/value table, one tab-separated line, or JSON. */
export function writePet(pet: Pet, format: Exclude<OutputFormat, "csv">, io: IoStreams): void {
  const category = pet.category?.name ?? "";
  const tags = pet.tags.map((tag) => tag.name).join(", ");
  const photoUrls = pet.photoUrls.join(" ");
  switch (format) {
    case "json":
      io.out.write(toJson(pet));
      return;
    case "tsv":
      io.out.write(tsvLine([pet.id, pet.name, pet.status, category, tags, photoUrls]));
      return;
    case "table":
      io.out.write(
        renderTable(
          {
            head: ["field", "value"],
            rows: [
              ["id", pet.id.toString()],
              ["name", pet.name],
              ["status", styleStatus(pet.status, io.style)],
              ["category", category],
              ["tags", tags],
              ["photoUrls", pet.photoUrls.join("\n")],
            ],
          },
          io.style,
        ),
      );
      return;
  }
}
