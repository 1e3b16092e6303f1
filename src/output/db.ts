/** What `db backup` and `db copy` print on stdout. */
import type { BackupReport, CopyReport } from "../api/store-reports.js";
import type { IoStreams } from "./io-streams.js";

/** The backup's report: `label  value` lines in the order of the JSON object's fields. */
export function writeBackupReport(report: BackupReport, json: boolean, io: IoStreams): void {
  io.out.write(json ? `${JSON.stringify(report)}\n` : formatBackupReport(report));
}

function formatBackupReport(report: BackupReport): string {
  const lines: [string, string | number][] = [
    ["backup", report.path],
    ["source", report.source],
    ["bytes", report.bytes],
    ["integrity check", report.integrity],
    ["schema version", report.schemaVersion],
    ["pets", report.pets],
    ["orders", report.orders],
    ["history records", report.historyRecords],
    ["idempotency records", report.idempotencyRecords],
  ];
  const width = Math.max(...lines.map(([label]) => label.length)) + 2;
  return lines.map(([label, value]) => `${label.padEnd(width)}${value}\n`).join("");
}

/** The copy's report: a line per table, its rows in SQLite and in PostgreSQL, then what next. */
export function writeCopyReport(report: CopyReport, from: string, io: IoStreams): void {
  io.out.write(formatCopyReport(report, from));
}

function formatCopyReport(report: CopyReport, from: string): string {
  const rows = [
    ["", "source", "copied"],
    ...report.counts.map((count) => [count.label, String(count.source), String(count.copied)]),
  ];
  const widths = [0, 1, 2].map((column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  const lines = rows.map(([label = "", source = "", copied = ""]) =>
    [label.padEnd(widths[0] ?? 0), source.padStart(widths[1] ?? 0), copied.padStart(widths[2] ?? 0)]
      .join("  ")
      .trimEnd(),
  );
  const seconds = (report.elapsedMs / 1000).toFixed(1);
  return [
    ...lines,
    `done: copied ${from} into ${report.target} in ${seconds} s; the change feed goes on after seq ${report.lastSeq}`,
    "next: stop using the SQLite file, and start petstore serve with PETSTORE_DATABASE_URL set (without --db) on every instance",
    "",
  ].join("\n");
}
