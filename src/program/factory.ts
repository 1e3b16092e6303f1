/**
 * The one place that turns injected dependencies and global options into what commands use:
 * the IO streams object and, on demand, the API client for the selected target.
 */
import type { ApiClient, DeprecationNotice } from "../client/api-client.js";
import type { HttpExchange } from "../client/http-exchange.js";
import type { Exchange } from "../client/transport.js";
import { describeTarget, resolveTarget } from "../client/target.js";
import { createIoStreams, type IoStreams } from "../output/io-streams.js";
import { isThisMachineAsDestination } from "../api/loopback.js";
import { formatClearTextWarning, formatDeprecationWarning } from "../output/messages.js";
import { formatTraceEvent } from "../output/trace.js";
import type { ProxyContext, TargetContext } from "../client/errors.js";
import type { Deps } from "./deps.js";
import { NO_INTERRUPTS, type InterruptSource } from "./interrupts.js";
import type { GlobalOptions } from "./global-options.js";
import { USER_AGENT } from "./version.js";

/** What a command's run function gets: where to write, and how to reach the API. */
export interface CommandContext {
  io: IoStreams;
  /** The process's environment (the server's and the db verbs' settings come from it). */
  env: Deps["env"];
  /** Resolves the target (UsageError when URL or key is missing) and builds the client. */
  apiClient(): Promise<ApiClient>;
  /** The target the client talks to, without its key (a count session is kept per server). */
  target(): Promise<TargetContext>;
  /** Input files and stdin, for commands that read data (`inventory apply`). */
  input: CommandInput;
  /** SIGINT/SIGTERM, for a command that stops cleanly when interrupted. */
  interrupts: InterruptSource;
  /** Waits (between the rounds of `adjust`), injected so tests do not wait. */
  sleep: (ms: number) => Promise<void>;
  /** Jitter source, in [0, 1). */
  random: () => number;
  /** Clock in milliseconds (a follower's pace between requests). */
  now: () => number;
}

/** Where a command reads its input from. */
export interface CommandInput {
  readFile: (path: string) => Promise<string>;
  /** Reads stdin to its end as UTF-8 text (empty when the run has no stdin). */
  readStdin: () => Promise<string>;
  /** stdin itself, for a command that reads it line by line (`inventory count`). */
  stdin: NodeJS.ReadableStream | undefined;
  /**
   * Where an interactive command prompts and echoes what is typed: stderr, when stdin and
   * stderr are terminals; undefined when the input is not typed at a terminal.
   */
  terminal: NodeJS.WritableStream | undefined;
}

async function readStream(stream: NodeJS.ReadableStream | undefined): Promise<string> {
  if (stream === undefined) return "";
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Builds command contexts for one run and cleans up after it. */
export class Factory {
  readonly deps: Deps;
  #ownConnections: HttpExchange | undefined;
  #warnedDeprecation = false;
  #warnedClearText = false;

  constructor(deps: Deps) {
    this.deps = deps;
  }

  /** The IO streams object for these options; colour and progress are decided here, once. */
  io(globals: Pick<GlobalOptions, "color" | "verbose">): IoStreams {
    return createIoStreams({
      out: this.deps.stdout,
      err: this.deps.stderr,
      isTTY: this.deps.stdoutIsTTY ?? false,
      columns: this.deps.stdoutColumns,
      errIsTTY: this.deps.stderrIsTTY ?? false,
      errStream: this.deps.stderr,
      verbose: globals.verbose,
      env: this.deps.env,
      colorFlag: globals.color,
    });
  }

  /** The context a command runs with. */
  context(globals: GlobalOptions): CommandContext {
    return {
      io: this.io(globals),
      env: this.deps.env,
      apiClient: () => this.#apiClient(globals),
      target: async () =>
        describeTarget(await resolveTarget(globals, this.deps.env, this.deps.readFile)),
      input: {
        readFile: this.deps.readFile,
        readStdin: () => readStream(this.deps.stdin),
        stdin: this.deps.stdin,
        terminal:
          this.deps.stdinIsTTY === true && this.deps.stderrIsTTY === true
            ? this.deps.stderr
            : undefined,
      },
      interrupts: this.deps.interrupts ?? NO_INTERRUPTS,
      sleep: this.deps.sleep,
      random: this.deps.random,
      now: this.deps.now,
    };
  }

  async #apiClient(globals: GlobalOptions): Promise<ApiClient> {
    const target = await resolveTarget(globals, this.deps.env, this.deps.readFile);
    // The HTTP client is loaded only by commands that talk HTTP, to keep start-up cheap.
    const [{ createApiClient }, { proxy, exchange }] = await Promise.all([
      import("../client/api-client.js"),
      this.#exchange(globals.timeout, target.baseUrl),
    ]);
    const stderr = this.deps.stderr;
    this.#warnClearText(target.baseUrl);
    // The errors the client raises carry the target (never the key) for their hints.
    return createApiClient({
      target,
      exchange,
      proxy,
      timeoutMs: globals.timeout,
      retry: { retries: globals.retries, sleep: this.deps.sleep, random: this.deps.random },
      now: this.deps.now,
      idempotencyKey: this.deps.newIdempotencyKey,
      userAgent: USER_AGENT,
      trace: globals.verbose ? (event) => stderr.write(formatTraceEvent(event)) : undefined,
      onDeprecation: (notice) => {
        this.#warnDeprecation(notice);
      },
    });
  }

  /**
   * How requests are sent, and the proxy `baseUrl` goes through: through the injected
   * dispatcher if there is one (no proxy then), else this run's own connections.
   */
  async #exchange(
    timeoutMs: number,
    baseUrl: string,
  ): Promise<{ exchange: Exchange; proxy: ProxyContext | undefined }> {
    const injected = this.deps.dispatcher;
    if (injected !== undefined) {
      const { undiciExchange } = await import("../client/dispatcher.js");
      return { exchange: undiciExchange(injected), proxy: undefined };
    }
    const [{ openConnections }, { proxyFor, proxySettings }] = await Promise.all([
      import("../client/connections.js"),
      import("../client/proxy.js"),
    ]);
    this.#ownConnections ??= await openConnections(this.deps.env, timeoutMs);
    return {
      exchange: this.#ownConnections.exchange,
      proxy: proxyFor(proxySettings(this.deps.env), baseUrl),
    };
  }

  /** A key about to leave this machine unencrypted: said once, on stderr, before the first request. */
  #warnClearText(baseUrl: string): void {
    const url = new URL(baseUrl);
    if (
      this.#warnedClearText ||
      url.protocol !== "http:" ||
      isThisMachineAsDestination(url.hostname)
    )
      return;
    this.#warnedClearText = true;
    this.deps.stderr.write(formatClearTextWarning(url.origin));
  }

  #warnDeprecation(notice: DeprecationNotice): void {
    if (this.#warnedDeprecation) return;
    this.#warnedDeprecation = true;
    this.deps.stderr.write(formatDeprecationWarning(notice));
  }

  /** Closes what this run opened (its own connections, not an injected dispatcher). */
  async close(): Promise<void> {
    const connections = this.#ownConnections;
    this.#ownConnections = undefined;
    await connections?.close();
  }
}
