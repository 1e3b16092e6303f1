/** CSV (RFC 4180) and tab-separated lines. */

type Field = string | number | bigint | boolean;

function csvField(value: Field): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line, quoting fields that need it. */
export function csvLine(fields: readonly Field[]): string {
  return `${fields.map(csvField).join(",")}\n`;
}

/** One tab-separated line; tabs and line breaks inside a field become spaces. */
export function tsvLine(fields: readonly Field[]): string {
  return `${fields.map((field) => String(field).replace(/[\t\r\n]/g, " ")).join("\t")}\n`;
}
