/**
 * GET /inventory/changes: the change feed. Every history record once, in commit order (`seq`),
 * paged by a cursor (`after`), with a long poll (`wait`): when nothing is past the cursor, the
 * request waits for the first new change, through whichever instance it is made.
 */
import type { FastifyPluginAsync } from "fastify";
import { ERROR_CODES } from "../../api/error-codes.js";
import {
  DEFAULT_FEED_LIMIT,
  MAX_FEED_LIMIT,
  MAX_FEED_WAIT_SECONDS,
  MAX_PET_ID,
} from "../../api/limits.js";
import type { Store } from "../store/store.js";
import { REAL_TIMER, type Timer } from "../timer.js";
import { serializeFeedPage } from "./change-json.js";
import { INVENTORY_SEQ_HEADER, wholeNumberParameter } from "./inventory.js";
import { rejectOtherMethods } from "./method-not-allowed.js";

/**
 * How often a waiting request asks the store whether anything changed. The store's revision
 * moves with every commit through any instance (a fresh read on PostgreSQL, `data_version` on
 * SQLite), so a change anywhere wakes a waiting request within this much, well inside the
 * second promised; one small read per waiting request per interval.
 */
export const FEED_POLL_MS = 200;

export interface InventoryChangesOptions {
  store: Store;
  /** What the long poll's wait is measured by; the real clock unless a test moves its own. */
  timer?: Timer;
}

export const inventoryChangesRoutes: FastifyPluginAsync<InventoryChangesOptions> = async (
  app,
  { store, timer = REAL_TIMER },
) => {
  // Closing ends every long poll at once (an empty page: the client asks again elsewhere),
  // so a shutdown never waits up to a minute for them.
  const closing = new AbortController();
  app.addHook("preClose", (done) => {
    closing.abort();
    done();
  });

  app.get<{ Querystring: Record<string, unknown> }>(
    "/inventory/changes",
    async (request, reply) => {
      const after = wholeNumberParameter(
        request.query,
        "after",
        { min: 0n, max: MAX_PET_ID, fallback: 0n },
        ERROR_CODES.invalidParameter,
      );
      const limit = Number(
        wholeNumberParameter(
          request.query,
          "limit",
          { min: 1n, max: BigInt(MAX_FEED_LIMIT), fallback: BigInt(DEFAULT_FEED_LIMIT) },
          ERROR_CODES.invalidLimit,
        ),
      );
      const waitMs =
        Number(
          wholeNumberParameter(
            request.query,
            "wait",
            { min: 0n, max: BigInt(MAX_FEED_WAIT_SECONDS), fallback: 0n },
            ERROR_CODES.invalidParameter,
          ),
        ) * 1000;

      // The revision is read before the page: a change committed after the page was read
      // moves it, and the wait below sees that.
      let revision = waitMs > 0 ? await store.revision() : "";
      let records = await store.listFeed(after, limit);
      // An empty page says how far the store goes (`Inventory-Seq`): a cursor above it is not
      // this store's (a cursor file from another store, or from before the store was restored),
      // and a reader following it would skip every change until the seqs passed it. Such a
      // cursor is answered at once: waiting would not make it one this store handed out.
      let latest = records.length === 0 ? await store.latestSeq() : undefined;
      if (records.length === 0 && waitMs > 0 && after <= (latest ?? 0n)) {
        const gone = new AbortController();
        reply.raw.once("close", () => {
          gone.abort();
        });
        const stop = AbortSignal.any([closing.signal, gone.signal]);
        const deadline = timer.now() + waitMs;
        while (records.length === 0 && !stop.aborted) {
          const left = deadline - timer.now();
          if (left <= 0) break;
          try {
            await timer.sleep(Math.min(FEED_POLL_MS, left), stop);
          } catch {
            break; // closing, or the client went away
          }
          const now = await store.revision();
          if (now === revision) continue;
          revision = now;
          records = await store.listFeed(after, limit);
        }
        // What the wait ended on: the latest as of now, for an empty page.
        latest = records.length === 0 ? await store.latestSeq() : undefined;
      }
      // Read after the page, the latest may be above `after` already: only `after` above it
      // means anything.
      if (latest !== undefined) void reply.header(INVENTORY_SEQ_HEADER, String(latest));
      return reply.type("application/json; charset=utf-8").send(serializeFeedPage(records, after));
    },
  );

  rejectOtherMethods(app, "/inventory/changes", ["GET"]);
};
