import { describe, expect, it } from "vitest";
import { toHttpError } from "../../src/server/error-handler.js";
import { OperatorError } from "../../src/api/operator-error.js";
import { chooseStore } from "../../src/server/store-choice.js";
import { StoreUnavailableError } from "../../src/server/store/store-unavailable-error.js";

const URL = "postgres://petstore:s3cret-pw@127.0.0.1:5432/inventory";

/** The OperatorError `action` rejects with. */
async function startupError(action: () => Promise<unknown>): Promise<OperatorError> {
  const error = await action().then(
    () => new Error("no OperatorError thrown"),
    (caught: unknown) => caught,
  );
  if (error instanceof OperatorError) return error;
  throw error;
}

describe("chooseStore", () => {
  it("opens the SQLite file of --db, or ./petstore.db, without PETSTORE_DATABASE_URL", async () => {
    expect(await chooseStore(undefined, {})).toEqual({ kind: "sqlite", path: "./petstore.db" });
    expect(await chooseStore("/var/x.db", { PETSTORE_DATABASE_URL: "" })).toEqual({
      kind: "sqlite",
      path: "/var/x.db",
    });
  });

  it("chooses PostgreSQL from PETSTORE_DATABASE_URL, named without user or password, 10 connections by default", async () => {
    expect(await chooseStore(undefined, { PETSTORE_DATABASE_URL: URL })).toEqual({
      kind: "postgres",
      url: URL,
      name: "database inventory on 127.0.0.1:5432",
      poolSize: 10,
    });
    const socket = await chooseStore(undefined, {
      PETSTORE_DATABASE_URL: "postgres://petstore@/inventory?host=/run/postgresql",
      PETSTORE_DATABASE_POOL_SIZE: "25",
    });
    expect(socket).toMatchObject({
      name: "database inventory on socket /run/postgresql",
      poolSize: 25,
    });
  });

  it("refuses --db with PETSTORE_DATABASE_URL, another scheme, and a bad pool size, never echoing the URL", async () => {
    const both = await startupError(() => chooseStore("x.db", { PETSTORE_DATABASE_URL: URL }));
    expect(both.failure).toBe("configuration");
    expect(both.message).toMatch(/both --db and PETSTORE_DATABASE_URL/);
    const scheme = await startupError(() =>
      chooseStore(undefined, { PETSTORE_DATABASE_URL: "mysql://root:s3cret-pw@h/db" }),
    );
    expect(scheme.message).toMatch(/must be a postgres:\/\//);
    for (const bad of ["postgres://u:s3cret-pw@h:notaport/db", "postgres://u:s3cret-pw@h/db%"]) {
      const invalid = await startupError(() =>
        chooseStore(undefined, { PETSTORE_DATABASE_URL: bad }),
      );
      expect(invalid.message).toBe("PETSTORE_DATABASE_URL is not a valid URL");
    }
    for (const size of ["1", "0", "1001", "ten", "-5", "2.5"]) {
      const error = await startupError(() =>
        chooseStore(undefined, { PETSTORE_DATABASE_URL: URL, PETSTORE_DATABASE_POOL_SIZE: size }),
      );
      expect(error.message).toContain(`not "${size}"`);
    }
    for (const error of [both, scheme]) expect(error.message).not.toContain("s3cret");
  });
});

describe("StoreUnavailableError as an answer", () => {
  it("is 503 unavailable with Retry-After, saying whether the change may have been made", () => {
    const before = toHttpError(new StoreUnavailableError("PostgreSQL database x is unreachable"));
    expect(before.statusCode).toBe(503);
    expect(before.headers).toMatchObject({ "retry-after": "1" });
    expect(before.toBody()).toMatchObject({
      code: "unavailable",
      message: "the database is unreachable; nothing was changed, retry later",
    });
    const during = toHttpError(new StoreUnavailableError("lost", { maybeCommitted: true }));
    expect(during.toBody().message).toMatch(
      /may or may not have been made; retry with the same Idempotency-Key/,
    );
  });
});
