/**
 * The PostgreSQL store when the database's disk is full. Which errors are "full" (pg's own
 * DatabaseError, as the driver raises it); and for real, as root (skipped visibly elsewhere):
 * a database whose tablespace is a small tmpfs, filled (reached directly and through PgBouncer
 * in transaction and in session mode), so that PostgreSQL refuses to extend a table with
 * `disk_full` (53100) while its WAL, elsewhere, has room: writes reject with StoreFullError
 * naming the database, never the password; reads answer; once space is freed the same store
 * writes again.
 */
import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDiskFull, isUnreachable } from "../../../../src/server/store/postgres/connection.js";
import { openPostgresStore } from "../../../../src/server/store/postgres/store.js";
import { StoreFullError } from "../../../../src/server/store/store-full-error.js";
import type { Store } from "../../../../src/server/store/store.js";
import { forEachRoute, queryDatabase, whereSource } from "../../../support/postgres-database.js";
import { TEST_CLUSTER_PASSWORD } from "../../../support/postgres-cluster.js";
import {
  cannotMakeTmpfsDatabase,
  createTmpfsDatabase,
  type TmpfsDatabase,
} from "../../../support/postgres-tmpfs-database.js";
import { fillFileSystem } from "../../../support/tmpfs.js";
import { PETS } from "../../fixture.js";

/** An error as pg raises it for an ErrorResponse with this SQLSTATE. */
function databaseError(code: string, message: string): pg.DatabaseError {
  const error = new pg.DatabaseError(message, message.length, "error");
  error.code = code;
  error.severity = "ERROR";
  return error;
}

describe("isDiskFull (PostgreSQL)", () => {
  it("is disk_full (53100) alone of class 53", () => {
    const full = databaseError(
      "53100",
      'could not extend file "pg_tblspc/16384/PG_16_202307071/16385/16400": No space left on device',
    );
    expect(isDiskFull(full)).toBe(true);
    expect(isUnreachable(full)).toBe(false);
    // insufficient_resources and out_of_memory are not about storage; too_many_connections
    // is the database not taking sessions (unreachable, as before).
    expect(isDiskFull(databaseError("53000", "insufficient resources"))).toBe(false);
    expect(isDiskFull(databaseError("53200", "out of memory"))).toBe(false);
    expect(isDiskFull(databaseError("53300", "too many connections"))).toBe(false);
    expect(isUnreachable(databaseError("53300", "too many connections"))).toBe(true);
    expect(isDiskFull(new Error("53100"))).toBe(false);
    expect(isDiskFull(undefined)).toBe(false);
  });
});

const whyNot = cannotMakeTmpfsDatabase();

forEachRoute("PostgreSQL store with its tablespace on a full tmpfs", (route, name) => {
  describe.skipIf(whyNot !== undefined)(
    whyNot === undefined ? name : `${name}: skipped, cannot make one (${whyNot})`,
    () => {
      let database: TmpfsDatabase | undefined;
      let store: Store | undefined;

      beforeAll(async () => {
        database = await createTmpfsDatabase("4m", route);
        store = await openPostgresStore(database.url);
        await store.seedIfEmpty(PETS);
      });

      afterAll(async () => {
        if (database) rmSync(database.filler, { force: true });
        await store?.close();
        await database?.drop();
      });

      it("refuses writes with StoreFullError (53100), reads answer, writes resume once space is freed", async () => {
        const opened = store;
        if (!opened || !database) throw new Error("no store");
        const { name, url, filler } = database;
        fillFileSystem(filler);
        // Pages with room take a few more records; a write that needs a new page is refused.
        let refused: unknown;
        let acknowledged = PETS[0]?.quantity;
        for (let quantity = 1; quantity <= 5000 && refused === undefined; quantity++) {
          try {
            await opened.applyBatch({
              changes: [{ petId: 1n, quantity, ref: `r${quantity}-${"x".repeat(100)}` }],
              atomic: false,
              dryRun: false,
            });
            acknowledged = quantity;
          } catch (error) {
            refused = error;
          }
        }
        expect(refused).toBeInstanceOf(StoreFullError);
        const message = (refused as Error).message;
        expect(message).toMatch(
          new RegExp(
            `^PostgreSQL database ${name} on ${whereSource(route)} is out of disk space: .*\\(53100\\)$`,
          ),
        );
        expect(message).toContain("No space left on device");
        expect(message).not.toContain(TEST_CLUSTER_PASSWORD);
        expect((refused as Error).cause).toMatchObject({ code: "53100" });

        // Several at once: each refused as full, none as anything else.
        const group = await Promise.allSettled(
          [1, 2, 3].map((n) =>
            opened.applyBatch({
              changes: [{ petId: 2n, quantity: 9000 + n, ref: `g${n}-${"y".repeat(100)}` }],
              atomic: false,
              dryRun: false,
            }),
          ),
        );
        for (const settled of group) {
          expect((settled as PromiseRejectedResult).reason).toBeInstanceOf(StoreFullError);
        }
        expect((await opened.getInventoryItem(1n))?.item.quantity).toBe(acknowledged);
        expect((await opened.getInventoryItem(2n))?.item.quantity).toBe(0);

        rmSync(filler);
        const resumed = await opened.updateQuantity(2n, 77);
        expect(resumed).toMatchObject({ kind: "updated", item: { quantity: 77 } });
        const recorded = await queryDatabase<{ quantity: number }>(
          url,
          "SELECT quantity FROM inventory_changes WHERE pet_id = 2 ORDER BY seq",
        );
        expect(recorded.map((row) => row.quantity)).toEqual([0, 77]);
      });
    },
  );
});
