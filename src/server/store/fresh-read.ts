/**
 * A read whose answer is never older than the call: each call is answered by a read that
 * started after it. Calls made in the same turn of the event loop share one read, started
 * once the turn's other callbacks (the requests that arrived with them) have run, so a wave of
 * concurrent callers costs one read. A read already in flight is not waited for: it may have
 * started before the call, and the next one would cost the caller another round trip.
 */
export function freshRead<T>(read: () => Promise<T>): () => Promise<T> {
  let gathering: Promise<T> | undefined;
  return () => {
    gathering ??= new Promise((resolve) => setImmediate(resolve)).then(() => {
      gathering = undefined;
      return read();
    });
    return gathering;
  };
}
