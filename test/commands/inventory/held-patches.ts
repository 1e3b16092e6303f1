/**
 * A dispatcher in front of a MockAgent that holds each PATCH (or each request of another
 * method: a batch's POST) until the test releases it, and counts them in flight (dispatched,
 * response not yet complete): concurrency and interruptions tested by counting, not by the
 * clock.
 */
import type { Dispatcher, MockAgent } from "undici";

export interface HeldPatches {
  dispatcher: Dispatcher;
  /** PATCHes dispatched so far. */
  dispatched(): number;
  /** The most PATCHes that were in flight at once. */
  mostInFlight(): number;
  /** Sends every held PATCH on to the agent. */
  release(): void;
}

type Handler = Dispatcher.DispatchHandler;

/** `handler` with `settle` called once when its response ends or fails. */
function settling(handler: Handler, settle: () => void): Handler {
  let settled = false;
  const once = () => {
    if (!settled) {
      settled = true;
      settle();
    }
  };
  // A delegate, not a subclass: undici's handlers keep private state bound to themselves.
  const wrapped: Handler = {
    onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
    onRequestUpgrade: (controller, status, headers, socket) =>
      handler.onRequestUpgrade?.(controller, status, headers, socket),
    onResponseStart: (controller, status, headers, message) =>
      handler.onResponseStart?.(controller, status, headers, message),
    onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
    onResponseEnd: (controller, trailers) => {
      once();
      handler.onResponseEnd?.(controller, trailers);
    },
    onResponseError: (controller, error) => {
      once();
      handler.onResponseError?.(controller, error);
    },
  };
  return wrapped;
}

/**
 * Holds PATCHes (or the requests of `method`). `onHeld(count)` runs after each is held, with
 * how many are held; by default held requests are released once the current burst of
 * dispatches is over (setImmediate).
 */
export function holdPatches(
  agent: MockAgent,
  onHeld: (count: number, held: HeldPatches) => void = (_count, held) => {
    setImmediate(() => {
      held.release();
    });
  },
  method = "PATCH",
): HeldPatches {
  const queue: (() => void)[] = [];
  let dispatched = 0;
  let inFlight = 0;
  let most = 0;
  const held: HeldPatches = {
    dispatcher: agent.compose((dispatch) => (options, handler) => {
      if (options.method !== method) return dispatch(options, handler);
      dispatched += 1;
      inFlight += 1;
      most = Math.max(most, inFlight);
      const wrapped = settling(handler, () => {
        inFlight -= 1;
      });
      queue.push(() => dispatch(options, wrapped));
      onHeld(queue.length, held);
      return true;
    }),
    dispatched: () => dispatched,
    mostInFlight: () => most,
    release: () => {
      for (const send of queue.splice(0)) send();
    },
  };
  return held;
}
