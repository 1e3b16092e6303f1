/**
 * A read whose answer is never older than the call: each call is answered by a read that
 * started after it. Calls made while a read is in flight (it may have started before them)
 * share the next read, so a wave of concurrent callers costs one read, not one each.
 */
export function freshRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const call = (): Promise<T> => {
    if (!inFlight) {
      inFlight = read().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    }
    next ??= inFlight
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return call();
      });
    return next;
  };
  return call;
}
