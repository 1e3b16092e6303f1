// Module loader hooks (they run on Node's loader thread): log each URL, then load as usual.
import { appendFileSync } from "node:fs";

export async function load(url, context, nextLoad) {
  const log = process.env.PETSTORE_TEST_MODULE_LOG;
  if (log !== undefined) appendFileSync(log, `${url}\n`);
  return nextLoad(url, context);
}
