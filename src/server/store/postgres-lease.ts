/**
 * An instance's lease on its inventory cache: while it holds one, GET /v1/inventory is
 * answered from the cache without asking the database, and still a GET that starts after any
 * instance acknowledged a PATCH sees that PATCH.
 *
 * - Each instance keeps one connection of its own (not the pool's) that LISTENs on two
 *   channels, and on it holds a lease: a row of `inventory_instances` whose `lease_until` it
 *   renews every RENEW_EVERY_MS. A renewal reads the revision row FOR SHARE in the same
 *   statement, so renewals and writes are ordered by that row's lock: a renewal after a
 *   write's commit reads the write's revision, and a write that raises the revision after a
 *   renewal sees the renewed lease.
 * - A write, right after its commit (pipelined with it), lists the other instances whose
 *   lease runs (`ANNOUNCE`) and, when there are any, NOTIFYs the revision. Its PATCHes are
 *   acknowledged once each of those has answered that it knows the revision (a NOTIFY on the
 *   seen channel), or LEASE_MS after the commit, by when every lease taken before the commit
 *   has run out and every renewal after it has read the revision.
 * - An instance answers from its cache only while its lease runs, by its own clocks from
 *   before the renewal was sent, less MARGIN_MS (`current()`), and only while the cache holds
 *   the newest revision it has heard of. Otherwise it reads the revision (fresh-read.ts).
 *
 * A lease is taken only once the connection has received a notification it sent itself: a
 * connection through a transaction-pooling PgBouncer, which cannot carry LISTEN, never takes
 * one, and that instance reads the revision for every wave of GETs as before.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { isLockFailure } from "./postgres-connection.js";

/** How long a lease runs past the moment its renewal was sent. */
export const LEASE_MS = 1_000;
/**
 * How often a lease is renewed: a renewal may take LEASE_MS - RENEW_EVERY_MS - MARGIN_MS
 * (650 ms) before the cache goes back to reading the revision.
 */
const RENEW_EVERY_MS = LEASE_MS / 4;
/**
 * How much earlier than the database an instance stops trusting its lease: room for its
 * clocks and the database's to run at slightly different rates.
 */
const MARGIN_MS = 100;
/**
 * How long after its end a lease is still counted by writers: room for the database's clock
 * to be stepped forward (ntpd steps past 128 ms). A writer waits a lease at most anyway.
 */
const GRACE = "1 second";
/** How long a connection's first notification to itself may take before LISTEN counts as broken. */
const PROBE_MS = 2_000;
/** After LISTEN was found broken, how long before a new connection tries again. */
const RETRY_BROKEN_LISTEN_MS = 60_000;
/** Reconnecting after a lost connection: the first wait, doubled up to the last. */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;
/** Leases that ran out this long ago are deleted when an instance registers. */
const FORGET_AFTER = "1 minute";

/**
 * "<revision> <writer> <schema>": a write's revision, on the channel every instance with a
 * lease listens to. Channels are shared by every schema of a database: instances of another
 * schema (another store's tables) are told apart by the schema.
 */
const CHANGES_CHANNEL = "petstore_inventory";
/** "<instance> <revision>": an instance knows that revision; or "probe <instance>". */
const SEEN_CHANNEL = "petstore_inventory_seen";

/**
 * The statement a write sends right after its transaction (pipelined, the same round trip):
 * the revision and the other instances holding a lease, notified of it when there are any. Its
 * snapshot is taken after the write committed, so it sees every lease renewed before the
 * write locked the revision row; a renewal after that reads the write's revision itself.
 * Telling is not a change to keep: that transaction's commit does not wait for the WAL.
 */
const ANNOUNCE = `WITH current AS (
    SELECT revision FROM inventory_revision WHERE id = 1
  ), others AS (
    SELECT coalesce(array_agg(id), '{}') AS ids FROM inventory_instances
      WHERE id <> $1 AND lease_until + interval '${GRACE}' > statement_timestamp()
  )
  SELECT current.revision, others.ids,
    CASE WHEN cardinality(others.ids) > 0 THEN
      set_config('synchronous_commit', 'off', true)
        || pg_notify('${CHANGES_CHANNEL}',
          current.revision::text || ' ' || $1::text || ' ' || coalesce(current_schema(), ''))::text
    END AS told
  FROM current, others`;

/**
 * What ANNOUNCE returned after a write: a committed revision and who must learn of it; or,
 * when it failed after the write committed, that the write's revision is not known.
 */
export type Announcement =
  { kind: "announced"; revision: bigint; others: readonly string[] } | { kind: "unknown" };

/** Runs ANNOUNCE on `client`, once the write's transaction has been sent. */
export async function announce(client: pg.ClientBase, instanceId: string): Promise<Announcement> {
  const { rows } = await client.query<{ revision: bigint; ids: string[] }>({
    name: "announce",
    text: ANNOUNCE,
    values: [instanceId],
  });
  const row = rows[0];
  if (!row) throw new Error("the inventory revision row is missing");
  return { kind: "announced", revision: row.revision, others: row.ids };
}

const SQL = {
  renew: `WITH current AS (
      SELECT revision FROM inventory_revision WHERE id = 1 FOR SHARE
    ), held AS (
      INSERT INTO inventory_instances (id, lease_until)
        VALUES ($1, now() + make_interval(secs => $2::double precision / 1000))
        ON CONFLICT (id) DO UPDATE
          -- A renewal from a connection already given up may commit late: never shorter.
          SET lease_until = greatest(inventory_instances.lease_until, excluded.lease_until)
    )
    SELECT revision FROM current`,
  forget: `DELETE FROM inventory_instances WHERE lease_until < now() - interval '${FORGET_AFTER}'`,
  leave: "DELETE FROM inventory_instances WHERE id = $1",
  seen: `SELECT pg_notify('${SEEN_CHANNEL}', $1)`,
} as const;

export interface CacheLeaseOptions {
  /** A new session of its own (createListenerClient). */
  connect: () => pg.Client;
  /** Told when the lease's connection fails or LISTEN does not work through it. */
  onConnectionError?: (error: unknown) => void;
}

/** A write waiting for the other instances to know its revision. */
interface Waiter {
  revision: bigint;
  pending: Set<string>;
  done: () => void;
}

export class CacheLease {
  /** This instance's name in `inventory_instances`, new for every start. */
  readonly id = randomUUID();
  readonly #options: CacheLeaseOptions;
  #closed = false;
  #client: pg.Client | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #reconnectMs = RECONNECT_FIRST_MS;
  #renewing = false;
  /** Whether a failure was told since the lease was last renewed. */
  #reported = false;
  /** Until when (performance.now(), Date.now()) the lease runs, and when it was sent (Date.now()). */
  #validUntil = 0;
  #validUntilWall = 0;
  #sentWall = 0;
  /** The newest revision this instance knows was committed, and as the cache compares it. */
  #known = -1n;
  #knownText = "";
  /** The newest revision told to the other instances, and the one to tell next. */
  #told = -1n;
  #telling = false;
  /** The connection waiting for its notification to itself, and what to call when it comes. */
  #probe: { client: pg.Client; heard: () => void } | undefined;
  /** The schema this instance's tables are in (current_schema()), as writers name it. */
  #schema = "";
  /** When (performance.now()) the known revision was last raised. */
  #knownSince = 0;
  /** The highest revision each instance said it knows (they may answer before a write looks). */
  readonly #seen = new Map<string, bigint>();
  readonly #waiters = new Set<Waiter>();

  constructor(options: CacheLeaseOptions) {
    this.#options = options;
  }

  /** Connects, listens and takes the lease in the background; never throws. */
  start(): void {
    this.#connect();
  }

  /**
   * The revision the cache may be served at, without reading it: undefined unless the lease
   * runs by both clocks now.
   */
  current(): string | undefined {
    if (performance.now() >= this.#validUntil) return undefined;
    const wall = Date.now();
    if (wall < this.#sentWall || wall >= this.#validUntilWall) return undefined;
    return this.#knownText;
  }

  /** Records a revision known to be committed (read, written or notified). */
  observe(revision: bigint): void {
    if (revision <= this.#known) return;
    this.#known = revision;
    this.#knownText = String(revision);
    this.#knownSince = performance.now();
  }

  /**
   * Resolves once every one of `others` has said it knows `revision`, or a lease after now
   * (call it once the write committed), whichever comes first. When the revision is not
   * known, a lease after now: by then every lease taken before the commit, this instance's
   * too, has run out, and every renewal after it has read the revision.
   */
  acknowledged(announcement: Announcement): Promise<void> {
    if (announcement.kind === "unknown") {
      return new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    }
    const { revision, others } = announcement;
    const pending = new Set(others.filter((id) => (this.#seen.get(id) ?? -1n) < revision));
    if (pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        revision,
        pending,
        done: () => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, LEASE_MS);
      this.#waiters.add(waiter);
    });
  }

  /**
   * Gives the lease up and disconnects: writes announced from now on do not wait for this
   * instance (those already waiting for it do, at most a lease).
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#validUntil = 0;
    clearInterval(this.#renewTimer);
    clearTimeout(this.#reconnectTimer);
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    await client.query(SQL.leave, [this.id]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }

  #connect(): void {
    if (this.#closed) return;
    const client = this.#options.connect();
    this.#client = client;
    client.on("error", (error) => {
      this.#lost(client, error);
    });
    client.on("end", () => {
      this.#lost(client);
    });
    client.on("notification", (message) => {
      this.#notified(message, client);
    });
    void this.#listen(client).then(
      (listening) => {
        if (this.#client !== client) return;
        if (!listening) {
          if (!this.#reported) {
            this.#reported = true;
            this.#options.onConnectionError?.(
              new Error(
                "LISTEN/NOTIFY does not reach this instance (a transaction-pooling PgBouncer?): " +
                  "its inventory cache reads the revision for every wave of GETs",
              ),
            );
          }
          this.#drop(client, RETRY_BROKEN_LISTEN_MS);
          return;
        }
        this.#reconnectMs = RECONNECT_FIRST_MS;
        this.#renewTimer = setInterval(() => void this.#renew(client), RENEW_EVERY_MS);
        void this.#renew(client);
      },
      (error: unknown) => {
        this.#lost(client, error);
      },
    );
  }

  /** LISTENs, then waits for a notification sent to itself: whether LISTEN works here. */
  async #listen(client: pg.Client): Promise<boolean> {
    await client.connect();
    const { rows } = await client.query<{ schema: string }>(
      "SELECT coalesce(current_schema(), '') AS schema",
    );
    this.#schema = rows[0]?.schema ?? "";
    await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    await client.query(`LISTEN ${SEEN_CHANNEL}`);
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      this.#probe = {
        client,
        heard: () => {
          resolve(true);
        },
      };
      timer = setTimeout(() => {
        resolve(false);
      }, PROBE_MS);
      timer.unref();
    });
    await client.query(SQL.seen, [`probe ${this.id}`]);
    const listening = await heard;
    clearTimeout(timer);
    if (this.#probe?.client === client) this.#probe = undefined;
    if (listening) await client.query(SQL.forget);
    return listening;
  }

  async #renew(client: pg.Client): Promise<void> {
    if (this.#renewing || this.#client !== client) return;
    this.#renewing = true;
    const sent = performance.now();
    const sentWall = Date.now();
    // A connection lost without a word (no reset) would hold the lease's renewals forever:
    // one that takes two leases counts it as lost.
    const hung = setTimeout(() => {
      this.#lost(client, new Error("a lease renewal took too long"));
    }, 2 * LEASE_MS);
    try {
      const { rows } = await client.query<{ revision: bigint }>({
        name: "renew",
        text: SQL.renew,
        values: [this.id, LEASE_MS],
      });
      if (this.#client !== client) return;
      const revision = rows[0]?.revision;
      if (revision === undefined) throw new Error("the inventory revision row is missing");
      if (revision < this.#known && this.#knownSince < sent) {
        // Lower than a revision known committed before this renewal was sent: the database
        // went back (a restore, a failover to a standby that had not received everything).
        this.#known = revision;
        this.#knownText = String(revision);
        this.#knownSince = performance.now();
        this.#told = -1n;
        this.#seen.clear();
      }
      this.observe(revision);
      this.#validUntil = sent + LEASE_MS - MARGIN_MS;
      this.#sentWall = sentWall;
      this.#validUntilWall = sentWall + LEASE_MS - MARGIN_MS;
      this.#reported = false;
      // After a reconnect: writers that listed this instance wait for it to say what it knows.
      if (this.#told < this.#known) void this.#tell();
    } catch (error) {
      // A write held the revision row past the lock time-out: the lease lapses until a
      // renewal gets through, and the connection (still listening) stays.
      if (isLockFailure(error)) return;
      this.#lost(client, error);
    } finally {
      clearTimeout(hung);
      this.#renewing = false;
    }
  }

  #notified({ channel, payload = "" }: pg.Notification, client: pg.Client): void {
    const [first = "", second = "", ...rest] = payload.split(" ");
    const third = rest.join(" ");
    if (channel === CHANGES_CHANNEL) {
      // Know the revision, then say so (the writer knows already).
      if (!/^\d+$/.test(first) || third !== this.#schema) return;
      this.observe(BigInt(first));
      if (second !== this.id) void this.#tell();
      return;
    }
    if (channel !== SEEN_CHANNEL) return;
    if (first === "probe") {
      if (second === this.id && this.#probe?.client === client) this.#probe.heard();
      return;
    }
    if (!/^\d+$/.test(second)) return;
    this.#heardSeen(first, BigInt(second));
  }

  /** An instance knows `revision`: the writes waiting for it to stop waiting on it. */
  #heardSeen(instance: string, revision: bigint): void {
    if (this.#seen.size > 10_000) this.#seen.clear();
    if (revision > (this.#seen.get(instance) ?? -1n)) this.#seen.set(instance, revision);
    for (const waiter of this.#waiters) {
      if (waiter.revision > revision) continue;
      waiter.pending.delete(instance);
      if (waiter.pending.size === 0) waiter.done();
    }
  }

  /** Tells the other instances the newest revision this one knows; one notification at a time. */
  async #tell(): Promise<void> {
    const client = this.#client;
    if (this.#telling || !client) return;
    this.#telling = true;
    try {
      while (this.#told < this.#known && this.#client === client) {
        const revision = this.#known;
        await client.query({ name: "seen", text: SQL.seen, values: [`${this.id} ${revision}`] });
        // Told on this connection: a new one (after a loss meanwhile) tells for itself.
        if (this.#client === client) this.#told = revision;
      }
    } catch (error) {
      this.#lost(client, error);
    } finally {
      this.#telling = false;
    }
  }

  /** The lease's connection failed: no lease until a new one has listened and renewed. */
  #lost(client: pg.Client, error?: unknown): void {
    if (this.#client !== client) return;
    // Told once per outage, not at every attempt to reconnect.
    if (!this.#closed && !this.#reported) {
      this.#reported = true;
      this.#options.onConnectionError?.(error ?? new Error("the connection ended"));
    }
    this.#drop(client, this.#reconnectMs);
    this.#reconnectMs = Math.min(this.#reconnectMs * 2, RECONNECT_MAX_MS);
  }

  #drop(client: pg.Client, reconnectAfterMs: number): void {
    this.#validUntil = 0;
    this.#client = undefined;
    this.#told = -1n;
    clearInterval(this.#renewTimer);
    void client.end().catch(() => undefined);
    if (this.#closed) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#connect();
    }, reconnectAfterMs);
    this.#reconnectTimer.unref();
  }
}
