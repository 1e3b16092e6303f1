/** A moment as a person at this machine reads it. */
import { printable } from "./printable.js";

const pad = (value: number) => String(value).padStart(2, "0");

/** "2026-11-22 15:03:12" in the machine's time zone; the ISO text itself when it is no date. */
export function localTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return printable(iso);
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}
