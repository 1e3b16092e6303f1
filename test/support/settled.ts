/** Whether a promise has settled yet: for claims that something has not happened (yet). */
import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Whether `promise` has settled once the callbacks already due have run (two turns of the
 * event loop: what an answer already received, or a timer already due, leads to).
 */
export async function hasSettled(promise: PromiseLike<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await nextTurn();
  await nextTurn();
  return settled;
}
