/**
 * `inventory count`: a counting session. Lines come from a terminal (a person or a barcode
 * scanner) or from stdin; a pet's first line reads its book and the feed seq it is true as of;
 * every accepted line is journaled and flushed before it is echoed; the review shows each
 * pet's variance; posting sends one atomic batch of counts, each as of its pet's read, which
 * the server adds every later movement to.
 */
import { basename } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { CountChange } from "../../apply/count-rows.js";
import { RunInterruptedError } from "../../apply/run-errors.js";
import { fittedReason } from "../../api/change-reason.js";
import { MAX_BATCH_CHANGES, MAX_QUANTITY } from "../../api/limits.js";
import type { InventoryItem, PetStatus } from "../../api/types.js";
import type { ApiClient } from "../../client/api-client.js";
import { ApiError } from "../../client/errors.js";
import {
  Journal,
  JournalError,
  journalPaths,
  readJournal,
  sessionsDirectory,
} from "../../count/journal.js";
import { readCountLine } from "../../count/lines.js";
import { SessionBusyError, SessionLock } from "../../count/session-lock.js";
import {
  CountSession,
  type LineEntry,
  type PetRead,
  type SessionHeader,
} from "../../count/session.js";
import { UsageError } from "../../errors.js";
import { fileErrorReason } from "../../api/file-error.js";
import type { InterruptSignal } from "../../exit-codes.js";
import {
  countEcho,
  reviewText,
  totalsLine,
  writeCountSheet,
  writeSessions,
  type SessionListing,
} from "../../output/count.js";
import type { CommandContext } from "../../program/factory.js";
import { claimRun } from "../../program/interrupts.js";
import { countOf } from "../../text/plural.js";
import { runBatchJob } from "./batch-job.js";
import { countJob, isCompleteReport, type CountPosting } from "./count-job.js";
import { checkResumed, checkSeen, noteSeen, StoreRestoredError } from "./count-seen.js";

/** The options of `inventory count`, as its command definition parses them. */
export interface InventoryCountOptions {
  /** `--resume`: the unfinished session for this server; `--resume ID`: that session. */
  resume?: string | boolean | undefined;
  sessions?: boolean | undefined;
  full?: boolean | undefined;
  status?: PetStatus | undefined;
  dryRun?: boolean | undefined;
  yes?: boolean | undefined;
  json?: boolean | undefined;
  reason?: string | undefined;
  sheet?: boolean | undefined;
  csv?: boolean | undefined;
}

const BELL = "\u0007";

/**
 * A new session's id: its start in UTC, then 8 random hex digits (time-ordered, unique). The
 * id is in every ref the session posts (countRef), and refs are the server's, shared by every
 * till: two sessions started in the same second on two machines must not share one, or the
 * second one's counts would be taken for the first one's, posted before (`duplicate`). With 4
 * digits that was 1 in 65,536 for each such pair; with 8 it is 1 in 4,294,967,296.
 */
export function newSessionId(now: number, random: () => number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const suffix = Math.floor(random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, "0");
  return `${stamp}-${suffix}`;
}

/** The ref of a pet's count in a session: posting the session twice applies it once. */
export function countRef(sessionId: string, petId: bigint): string {
  return `count:${sessionId}:${petId}`;
}

function refuseCombinations(options: InventoryCountOptions): void {
  const given = (flags: [string, unknown][]) =>
    flags.filter(([, value]) => value !== undefined && value !== false).map(([flag]) => flag);
  if (options.sessions === true) {
    const others = given([
      ["--resume", options.resume],
      ["--full", options.full],
      ["--status", options.status],
      ["--sheet", options.sheet],
      ["--dry-run", options.dryRun],
      ["--yes", options.yes],
      ["--json", options.json],
    ]);
    if (others.length > 0)
      throw new UsageError(`--sessions lists sessions: not with ${others.join(", ")}`);
  }
  if (options.sheet === true) {
    const others = given([
      ["--resume", options.resume],
      ["--full", options.full],
      ["--dry-run", options.dryRun],
      ["--yes", options.yes],
      ["--reason", options.reason],
      ["--json", options.json],
    ]);
    if (others.length > 0) {
      throw new UsageError(
        `--sheet prints a count sheet and posts nothing: not with ${others.join(", ")}`,
        "post a filled sheet with petstore inventory apply FILE --as-of SEQ (the sheet's heading names its seq)",
      );
    }
  } else if (options.csv === true) {
    throw new UsageError("--csv is for --sheet: the count sheet as CSV");
  }
  if (options.status !== undefined && options.full !== true && options.sheet !== true) {
    throw new UsageError(
      "--status names the pets of a full stocktake (--full) or of a sheet (--sheet)",
      "count any pet without it; with --full, the pets of that status not counted are counted 0",
    );
  }
  if (options.resume !== undefined && options.full === true) {
    throw new UsageError(
      "--full starts a new stocktake: a resumed session keeps the scope it started with",
    );
  }
}

/** Runs `inventory count` as `options` say. */
export async function runInventoryCount(
  options: InventoryCountOptions,
  context: CommandContext,
): Promise<void> {
  refuseCombinations(options);
  const directory = sessionsDirectory(context.env);
  if (options.sessions === true) {
    writeSessions(listSessions(directory, context.io), context.io);
    return;
  }
  if (options.sheet === true) {
    await printSheet(options, context);
    return;
  }
  const interactive = context.input.terminal !== undefined;
  if (!interactive && options.yes !== true && options.dryRun !== true) {
    throw new UsageError(
      "not on a terminal, counts are posted only with --yes: nothing was read or posted",
      "add --yes to post the counts read from stdin, or --dry-run to see what they would do",
    );
  }
  const { baseUrl } = await context.target();
  const client = await context.apiClient();
  const { session, journal } = await openSession(options, context, directory, baseUrl, client);
  try {
    const { interrupted: ended, refused } = await countLines(session, journal, client, context);
    if (ended !== undefined) {
      throw new RunInterruptedError(
        ended,
        `interrupted by ${ended}: session ${session.header.id} saved, ${countOf(session.counted().length, "pet")} counted, nothing posted`,
        `continue it with petstore inventory count --resume ${session.header.id}`,
      );
    }
    // From stdin no one heard the bell: as a bad row of apply's file, a line refused stops the
    // post, and nothing is posted (a pet it meant would be posted short, for good).
    if (refused > 0) {
      const { id } = session.header;
      const notCounted = `${countOf(refused, "line")} of the input ${refused === 1 ? "was" : "were"} not counted (each is named above)`;
      throw session.posted
        ? new UsageError(
            `${notCounted}: session ${id} was posted before`,
            "fix those lines and count their pets in a new session (ID =N counts a pet wholly)",
          )
        : new UsageError(
            `${notCounted}, so nothing was posted: session ${id} stays open with the other lines counted`,
            `fix those lines and give them to this session: petstore inventory count --resume ${id} --yes`,
          );
    }
    await review(session, journal, options, context);
  } finally {
    journal.close();
  }
}

/** The session a journal holds; a JournalError for a file that is not one (named, located). */
function replayJournal(path: string): CountSession {
  try {
    return CountSession.replay(readJournal(path));
  } catch (error) {
    // Already located (its line), or a file that cannot be read (EACCES, a directory) or
    // replayed (no header).
    if (error instanceof JournalError) throw error;
    const reason =
      error instanceof Error
        ? ((error as NodeJS.ErrnoException).code ?? error.message)
        : String(error);
    throw new JournalError(`${path}: ${reason}`);
  }
}

/**
 * The sessions of `directory`, oldest first (by when each started, to the millisecond: an id
 * holds the second, and two sessions started in one second sort by their random part), with
 * their journals' paths. A file that is not a session's journal (edited by hand, another
 * program's) is passed over with a warning: it must not stop the listing or the finding of
 * the others.
 */
function readSessions(
  directory: string,
  io: CommandContext["io"],
): { path: string; session: CountSession }[] {
  const sessions = inSessionsDirectory(directory, () => journalPaths(directory)).flatMap((path) => {
    try {
      return [{ path, session: replayJournal(path) }];
    } catch (error) {
      if (!(error instanceof JournalError)) throw error;
      io.err.write(`warning: passed over ${error.message}: not a count session's journal\n`);
      return [];
    }
  });
  const started = (entry: { session: CountSession }) =>
    Date.parse(entry.session.header.startedAt) || 0;
  // A stable sort: the ids' order where the start times are equal.
  return sessions.sort((a, b) => started(a) - started(b));
}

/** Every session in `directory`, oldest first. */
function listSessions(directory: string, io: CommandContext["io"]): SessionListing[] {
  return readSessions(directory, io).map(({ session }) => {
    const { id, server, startedAt } = session.header;
    return {
      id,
      server,
      startedAt,
      pets: session.counted().length,
      state: session.posted ? "posted" : "open",
    };
  });
}

async function printSheet(options: InventoryCountOptions, context: CommandContext): Promise<void> {
  const client = await context.apiClient();
  const { items, seq } = await readSnapshot(client);
  const scope =
    options.status === undefined ? items : items.filter((item) => item.status === options.status);
  writeCountSheet(scope, seq, options.csv === true, context.io);
}

/** A new session (its journal made, and with --full its scope read), or the one resumed. */
async function openSession(
  options: InventoryCountOptions,
  context: CommandContext,
  directory: string,
  server: string,
  client: ApiClient,
): Promise<{ session: CountSession; journal: Journal }> {
  const { io } = context;
  if (options.resume !== undefined && options.resume !== false) {
    const path = findSession(directory, server, options.resume, io);
    // Taken before the journal is read: another process using the session could be adding to it.
    const lock = lockSession(directory, () =>
      SessionLock.take(path, basename(path, ".jsonl"), context.now()),
    );
    let resumed: { session: CountSession; journal: Journal };
    try {
      resumed = resumeSession(path, server, lock, io);
    } catch (error) {
      lock.release();
      throw error;
    }
    try {
      await checkResumed(resumed.session, resumed.journal, client, io);
    } catch (error) {
      resumed.journal.close();
      throw error;
    }
    return resumed;
  }
  const header: SessionHeader = {
    type: "session",
    id: newSessionId(context.now(), context.random),
    server,
    startedAt: new Date(context.now()).toISOString(),
    full: options.full === true,
    status: options.status ?? null,
  };
  const session = new CountSession(header);
  const journal = lockSession(directory, () => Journal.create(directory, header.id, context.now()));
  journal.append(header);
  if (header.full) {
    const { items, seq } = await readSnapshot(client);
    const scope = {
      type: "scope" as const,
      asOf: seq,
      pets: items
        .filter((item) => header.status === null || item.status === header.status)
        .map((item) => ({ petId: item.petId, status: item.status, book: item.quantity })),
    };
    // The change at the scope's seq is noted before the scope is journaled: a session never
    // holds a scope whose seq it cannot check.
    await noteSeen(session, journal, client, seq);
    journal.append(scope);
    session.apply(scope);
  }
  io.err.write(
    `count session ${header.id} on ${server}${header.full ? `: a full stocktake of ${countOf(session.scope?.pets.length ?? 0, "pet")}${header.status === null ? "" : ` (${header.status})`}, as of seq ${session.scope?.asOf}` : ""}\n` +
      `journal: ${journal.path}\n`,
  );
  if (context.input.terminal !== undefined) {
    io.err.write(
      "scan or type: ID (one more), ID xN (N more), ID =N (exactly N);\n" +
        "undo (the last line), ? (the totals), done (or Ctrl-D) to review and post\n",
    );
  }
  return { session, journal };
}

/** The session of the journal at `path`, read back and reopened under `lock`. */
function resumeSession(
  path: string,
  server: string,
  lock: SessionLock,
  io: CommandContext["io"],
): { session: CountSession; journal: Journal } {
  let session: CountSession;
  try {
    session = replayJournal(path);
  } catch (error) {
    if (error instanceof JournalError) {
      throw new UsageError(
        `cannot resume: ${error.message}`,
        "the journal is one JSON object a line; a line edited by hand must keep its shape",
      );
    }
    throw error;
  }
  // Its books and seqs are its server's: posted elsewhere, they would be read as another
  // store's (a bare --resume only finds this server's sessions).
  if (session.header.server !== server) {
    throw new UsageError(
      `count session ${session.header.id} was counted on ${session.header.server}, not on ${server}: its books and seqs are that server's; nothing was read or posted`,
      `resume it against that server: petstore inventory count --resume ${session.header.id} --base-url ${session.header.server}`,
    );
  }
  const journal = Journal.reopen(path, lock);
  io.err.write(
    `resuming session ${session.header.id}${session.posted ? " (posted already: its counts stand, and posting it again changes nothing)" : ""}: ${countOf(session.counted().length, "pet")} counted\n`,
  );
  return { session, journal };
}

/**
 * `take()`, a session's lock taken (and a new session's journal made) in `directory`; another
 * process holding the session, or a directory this user cannot make or write to, is a usage
 * error (exit 2) saying so.
 */
function lockSession<T>(directory: string, take: () => T): T {
  try {
    return inSessionsDirectory(directory, take);
  } catch (error) {
    if (error instanceof SessionBusyError) throw new UsageError(error.message, error.hint);
    throw error;
  }
}

/** `work()` on the sessions directory; a file system failure there is a usage error (exit 2). */
function inSessionsDirectory<T>(directory: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (typeof (error as NodeJS.ErrnoException).code === "string") {
      throw new UsageError(
        `cannot keep count sessions in ${directory}: ${fileErrorReason(error)}; nothing was read or posted`,
        "sessions are kept under $XDG_STATE_HOME/petstore/counts (~/.local/state when it is not set): set XDG_STATE_HOME to a directory this user may write to",
      );
    }
    throw error;
  }
}

/** The journal of the session to resume: the one named, or this server's latest unposted. */
function findSession(
  directory: string,
  server: string,
  resume: string | true,
  io: CommandContext["io"],
): string {
  const paths = inSessionsDirectory(directory, () => journalPaths(directory));
  if (typeof resume === "string") {
    const path = paths.find((candidate) => candidate.endsWith(`/${resume}.jsonl`));
    if (path === undefined) {
      throw new UsageError(
        `no count session ${resume} in ${directory}`,
        "list them with petstore inventory count --sessions",
      );
    }
    return path;
  }
  const open = readSessions(directory, io).filter(
    ({ session }) => !session.posted && session.header.server === server,
  );
  const latest = open.at(-1);
  if (latest !== undefined) {
    // The latest is resumed; the others are said, so that none is counted into unknowingly.
    const others = open.slice(0, -1).map(({ session }) => session.header.id);
    if (others.length > 0) {
      io.err.write(
        `note: resuming the latest of ${open.length} open count sessions on ${server}; the ${others.length === 1 ? "other" : "others"}: ${others.join(", ")} (petstore inventory count --resume ID)\n`,
      );
    }
    return latest.path;
  }
  throw new UsageError(
    `no unfinished count session for ${server}`,
    "start one with petstore inventory count; petstore inventory count --sessions lists every session",
  );
}

/** The server refused the key (401) or its scope (403): no line will read better. */
function isKeyRefused(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 401 || error.status === 403);
}

/** Reads a pet for its first line: its status, its quantity (the book) and the seq they hold at. */
async function readPet(client: ApiClient, petId: bigint): Promise<PetRead | "not_found"> {
  try {
    const { item, seq } = await client.getInventoryItem(petId);
    if (seq === undefined) throw new CountsUnsupportedError();
    return { status: item.status, book: item.quantity, asOf: seq };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return "not_found";
    throw error;
  }
}

/** The inventory and its seq; a server that does not say is refused (no seq is guessed). */
async function readSnapshot(client: ApiClient): Promise<{ items: InventoryItem[]; seq: bigint }> {
  const { items, seq } = await client.listInventorySnapshot();
  if (seq === undefined) throw new CountsUnsupportedError();
  return { items, seq };
}

/** A server that does not say as of which seq its answers hold cannot take counts. */
class CountsUnsupportedError extends UsageError {
  constructor() {
    super(
      "the server does not say as of which change its quantities hold (no Inventory-Seq header), so it cannot take counts; nothing was counted",
      "use a server that has count changes (petstore serve of this version does)",
    );
  }
}

/**
 * Reads the session's lines until `done`, the end of the input (Ctrl-D) or an interrupt;
 * returns the interrupting signal, if one came, and how many lines from stdin were refused
 * (at a terminal the bell says so, and the person types the line again).
 */
async function countLines(
  session: CountSession,
  journal: Journal,
  client: ApiClient,
  context: CommandContext,
): Promise<{ interrupted: InterruptSignal | undefined; refused: number }> {
  const { io, input } = context;
  const terminal = input.terminal;
  if (input.stdin === undefined) return { interrupted: undefined, refused: 0 };
  const lines = createInterface({
    input: input.stdin,
    ...(terminal === undefined ? {} : { output: terminal, terminal: true, prompt: "count> " }),
    crlfDelay: Infinity,
  });
  let interrupted: InterruptSignal | undefined;
  // Ctrl-C at a terminal reaches readline as a key, not as a signal (whose new line main.ts
  // writes): the cursor is still after the prompt.
  const ctrlC = { pressed: false };
  lines.on("SIGINT", () => {
    interrupted = "SIGINT";
    ctrlC.pressed = true;
    lines.close();
  });
  const run = claimRun(context.interrupts, (signal) => {
    interrupted = signal;
    lines.close();
  });
  let refused = 0;
  const refuse = (lineNumber: number, reason: string) => {
    if (terminal === undefined) refused += 1;
    io.err.write(
      terminal === undefined
        ? `line ${lineNumber}: ${reason}; nothing counted\n`
        : `${BELL}${io.style.red(`${reason}; nothing counted`)}\n`,
    );
  };
  const echo = (text: string) => {
    if (terminal !== undefined) io.err.write(text);
  };
  try {
    lines.prompt();
    let lineNumber = 0;
    for await (const text of lines) {
      lineNumber += 1;
      const line = readCountLine(text);
      if (line.kind === "done") break;
      // A posted session's counts stand (posting it again applies none of them twice): a line
      // that would count more would be dropped at the post without a word.
      if (session.posted && (line.kind === "add" || line.kind === "set" || line.kind === "undo")) {
        refuse(
          lineNumber,
          `session ${session.header.id} was posted, so its counts stand: count again in a new session (petstore inventory count)`,
        );
        lines.prompt();
        continue;
      }
      switch (line.kind) {
        case "blank":
          break;
        case "refused":
          refuse(lineNumber, line.reason);
          break;
        case "summary":
          io.err.write(totalsLine(session.totals()));
          break;
        case "undo": {
          const last = session.lastLine();
          if (last === undefined) {
            refuse(lineNumber, "nothing to undo");
            break;
          }
          journal.append({ type: "undo" });
          session.apply({ type: "undo" });
          const pet = session.pet(last.petId);
          echo(
            `undone: ${lineText(last)}; ${pet === undefined ? `pet ${last.petId} not counted` : countEcho(pet, io).trimEnd()}\n`,
          );
          break;
        }
        case "add":
        case "set": {
          // Refused as it is typed, not at the post (which would reject the whole session).
          const counted =
            line.kind === "add" ? (session.pet(line.petId)?.counted ?? 0) + line.units : line.count;
          if (counted > MAX_QUANTITY) {
            refuse(
              lineNumber,
              `pet ${line.petId} would be counted ${counted}, more than the ${MAX_QUANTITY} a quantity can be`,
            );
            break;
          }
          let read: PetRead | undefined;
          if (session.pet(line.petId) === undefined) {
            let answer: PetRead | "not_found";
            // What failed, for the message: the pet's read, or the check of the store's change.
            let step = "read it";
            try {
              answer = await run.until(async () => {
                const read = await readPet(client, line.petId);
                step = "check the store's change it was read as of";
                if (read !== "not_found") await noteSeen(session, journal, client, read.asOf);
                return read;
              });
            } catch (error) {
              if (
                interrupted !== undefined ||
                error instanceof CountsUnsupportedError ||
                error instanceof StoreRestoredError
              ) {
                throw error;
              }
              // From stdin no line can be scanned again, and a key refused stays refused:
              // the run ends with the failure's own exit code, the session open.
              if (terminal === undefined || isKeyRefused(error)) {
                io.err.write(
                  `line ${lineNumber}: pet ${line.petId}: cannot ${step}; nothing posted: session ${session.header.id} stays open with the lines before this one counted (petstore inventory count --resume ${session.header.id})\n`,
                );
                throw error;
              }
              refuse(
                lineNumber,
                `pet ${line.petId}: cannot ${step} (${error instanceof Error ? error.message : String(error)}); scan it again`,
              );
              break;
            }
            if (answer === "not_found") {
              refuse(lineNumber, `pet ${line.petId}: no such pet`);
              break;
            }
            read = answer;
          }
          const entry: LineEntry =
            line.kind === "add"
              ? { type: "add", petId: line.petId, units: line.units, read }
              : { type: "set", petId: line.petId, count: line.count, read };
          // Flushed to disk before it is shown: what was shown survives a crash.
          journal.append(entry);
          session.apply(entry);
          const pet = session.pet(line.petId);
          if (pet !== undefined) echo(countEcho(pet, io));
          break;
        }
      }
      if (interrupted !== undefined) break;
      lines.prompt();
    }
  } catch (error) {
    if (interrupted === undefined) throw error;
  } finally {
    run.release();
    lines.close();
  }
  if (terminal !== undefined && (interrupted === undefined || ctrlC.pressed)) io.err.write("\n");
  return { interrupted, refused };
}

function lineText(line: LineEntry): string {
  return line.type === "add"
    ? `pet ${line.petId}${line.units === 1 ? "" : ` x${line.units}`}`
    : `pet ${line.petId} =${line.count}`;
}

/** The review, the question, and the posting. */
async function review(
  session: CountSession,
  journal: Journal,
  options: InventoryCountOptions,
  context: CommandContext,
): Promise<void> {
  const { io } = context;
  const { id } = session.header;
  const rows = session.review();
  const interactive = context.input.terminal !== undefined;
  const dryRun = options.dryRun === true;
  const posting: CountPosting = {
    name: `session ${id}`,
    dryRun,
    atomic: true,
    reason: options.reason ?? fittedReason(`stocktake ${id}`),
    json: options.json === true,
    sessionId: id,
  };
  if (rows.length === 0) {
    io.err.write(
      `nothing counted: session ${id} stays open (petstore inventory count --resume ${id})\n`,
    );
    // --json reports nothing done as apply's does for an empty file, through the same job:
    // zero counts and no results. Posting nothing, it leaves the session open.
    if (posting.json) {
      await runBatchJob(
        countJob(() => Promise.resolve([]), posting, io),
        context,
      );
    }
    return;
  }
  // At a terminal, the review to decide on; from stdin, its totals (the report lists each).
  // The review is what the person answers the question on: where they are, the terminal,
  // even when stdout goes to a file (the report after posting still goes there).
  if (interactive) (io.isTTY ? io.out : io.err).write(reviewText(rows, session.totals(), io));
  else if (options.json !== true) io.err.write(totalsLine(session.totals()));
  if (rows.length > MAX_BATCH_CHANGES) {
    throw new UsageError(
      `${countOf(rows.length, "pet")} to post, more than the ${MAX_BATCH_CHANGES} one session can post (one atomic batch); nothing was posted`,
      "count the store in parts: one session per aisle or per status (--full --status S)",
    );
  }
  // Before the question: a store restored since the pets were read is refused, not asked about.
  await checkSeen(session, journal, await context.apiClient());
  if (interactive && options.yes !== true && !dryRun) {
    const asked = await ask(context, `Post ${countOf(rows.length, "count")}? [y/N] `);
    if (asked === "SIGINT") {
      io.err.write("\n");
      throw new RunInterruptedError(
        "SIGINT",
        `interrupted by SIGINT: session ${id} saved, ${countOf(session.counted().length, "pet")} counted, nothing posted`,
        `continue it with petstore inventory count --resume ${id}`,
      );
    }
    if (!/^y(es)?$/i.test(asked.answer.trim())) {
      io.err.write(
        `not posted: session ${id} stays open (petstore inventory count --resume ${id})\n`,
      );
      return;
    }
    // The question may have waited for hours: checked again.
    await checkSeen(session, journal, await context.apiClient());
  }
  // The server reports each count's book (as of its asOf) itself: a count sends what was seen.
  const counts: CountChange[] = rows.map(({ pet }) => ({
    petId: pet.petId,
    counted: pet.counted,
    asOf: pet.read.asOf,
    ref: countRef(id, pet.petId),
  }));
  const posted = { complete: false };
  try {
    await runBatchJob(
      countJob(
        () => Promise.resolve(counts),
        posting,
        io,
        (report) => {
          posted.complete = !dryRun && isCompleteReport(report);
        },
      ),
      context,
    );
  } finally {
    // Every count applied (or posted before) is a posted session, even when an interrupt came
    // while the last of them was in flight and the run ends 130 for it.
    if (posted.complete) {
      journal.append({ type: "posted", at: new Date(context.now()).toISOString() });
    }
  }
}

/**
 * Asks a question at the terminal and returns the line typed (empty at Ctrl-D), or "SIGINT" for
 * a Ctrl-C (at a terminal in raw mode it reaches readline as a key, not as a signal).
 */
async function ask(
  context: CommandContext,
  question: string,
): Promise<{ answer: string } | "SIGINT"> {
  const { stdin, terminal } = context.input;
  if (stdin === undefined || terminal === undefined) return { answer: "" };
  const rl: Interface = createInterface({ input: stdin, output: terminal, terminal: true });
  try {
    return await new Promise<{ answer: string } | "SIGINT">((resolve) => {
      rl.on("SIGINT", () => {
        resolve("SIGINT");
      });
      rl.on("close", () => {
        resolve({ answer: "" });
      });
      rl.question(question, (answer) => {
        resolve({ answer });
      });
    });
  } finally {
    rl.close();
  }
}
