/**
 * A task that runs one call at a time, in the order the calls came: SIGHUP's readings (the keys
 * file, the TLS pair), so that two signals in a row never interleave their reads and writes.
 * A call that rejects does not stop the ones after it.
 */
export function oneAtATime<A extends unknown[], R>(
  task: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  let last: Promise<unknown> = Promise.resolve();
  return (...args) => {
    const next = last.then(() => task(...args));
    last = next.catch(() => undefined);
    return next;
  };
}
