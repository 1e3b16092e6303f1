/**
 * The guides' code blocks, read for the tests that run them: a ```console block is a
 * transcript (`$ ` command lines, a trailing `\` continues one, `# exit N` at the end of a
 * command says its exit status; the lines after a command are what it prints, stdout and
 * stderr as a terminal shows them, `…` standing for any lines); in any other block, every line
 * that runs `petstore` is a command line of the program. An `ini` or `nginx` block is kept as
 * it is (a configuration file a test uses).
 */

export interface TranscriptStep {
  /** The command as the shell runs it (continuations joined). */
  command: string;
  /** The exit status the transcript gives it: `# exit N`, else 0. */
  exit: number;
  /** What it prints, line by line; `…` matches any number of lines. */
  output: string[];
  /** Where the command starts in the file (1-based), for messages. */
  line: number;
}

export interface Transcript {
  /** `console tty`: run on a pseudo-terminal, as a person at a terminal sees it. */
  tty: boolean;
  /**
   * `console pgbouncer`: run against a server on PostgreSQL through a PgBouncer in
   * transaction mode (configured as the guide's `ini` block says), not the guide's SQLite one.
   */
  pgbouncer: boolean;
  /**
   * `console tls`: run in a world without a server, where the transcripts start their own
   * (the HTTPS server a till reaches at PETSTORE_BASE_URL, https://127.0.0.1:8443/v1).
   */
  tls: boolean;
  /** `console tls nginx`: run with the guide's `nginx` block served by a real nginx. */
  nginx: boolean;
  steps: TranscriptStep[];
}

export interface GuideBlocks {
  transcripts: Transcript[];
  /** The text of each ```ini block (a configuration file), in order. */
  iniFiles: string[];
  /** The text of each ```nginx block (a site's configuration), in order. */
  nginxFiles: string[];
  /** Lines of other blocks that run petstore, with their line numbers. */
  commandLines: { text: string; line: number }[];
}

const EXIT_COMMENT = /\s+#\s*exit (\d+)\s*$/;

/** Blocks of shell commands (and crontabs); other blocks show output or files. */
const SHELL_BLOCKS: ReadonlySet<string> = new Set(["sh", "bash", "shell", "cron", "crontab"]);

/**
 * `petstore` where a command starts: a line's start, after `&&`, `||`, `;`, `|`, `$(` or `(`,
 * after `npx`, `exec` or `time`, past any `VAR=value` assignments (a cron line's five time
 * fields too). Not `journalctl -u petstore`, not `/etc/petstore`.
 */
const RUNS_PETSTORE =
  /(^\s*([\d*/,-]+\s+){5}|^\s*|&&|\|\||;|\||\$\(|\(|\b(npx|exec|time)\s)\s*(\w+=\S*\s+)*petstore\s/;

/** Reads the fenced code blocks of a Markdown file. */
export function readGuide(markdown: string): GuideBlocks {
  const lines = markdown.split("\n");
  const guide: GuideBlocks = { transcripts: [], iniFiles: [], nginxFiles: [], commandLines: [] };
  for (let index = 0; index < lines.length; index++) {
    const fence = /^(\s*)```(\S*)\s*(.*)$/.exec(lines[index] ?? "");
    if (fence === null) continue;
    const indent = fence[1] ?? "";
    const body: { text: string; line: number }[] = [];
    let end = index + 1;
    for (; end < lines.length && (lines[end] ?? "").trim() !== "```"; end++) {
      body.push({ text: (lines[end] ?? "").slice(indent.length), line: end + 1 });
    }
    if (fence[2] === "console") {
      const info = (fence[3] ?? "").split(/\s+/);
      guide.transcripts.push({
        tty: info.includes("tty"),
        pgbouncer: info.includes("pgbouncer"),
        tls: info.includes("tls"),
        nginx: info.includes("nginx"),
        steps: steps(body),
      });
    } else if (fence[2] === "ini") {
      guide.iniFiles.push(body.map((entry) => entry.text).join("\n"));
    } else if (fence[2] === "nginx") {
      guide.nginxFiles.push(body.map((entry) => entry.text).join("\n"));
    } else if (SHELL_BLOCKS.has(fence[2] ?? "")) {
      for (const entry of joinContinuations(body)) {
        if (RUNS_PETSTORE.test(entry.text)) guide.commandLines.push(entry);
      }
    }
    index = end;
  }
  return guide;
}

function joinContinuations(
  body: { text: string; line: number }[],
): { text: string; line: number }[] {
  const joined: { text: string; line: number }[] = [];
  let pending: { text: string; line: number } | undefined;
  for (const entry of body) {
    const text = pending ? `${pending.text} ${entry.text.trim()}` : entry.text;
    const line = pending?.line ?? entry.line;
    if (text.endsWith("\\")) pending = { text: text.slice(0, -1).trimEnd(), line };
    else {
      joined.push({ text, line });
      pending = undefined;
    }
  }
  return joined;
}

function steps(body: { text: string; line: number }[]): TranscriptStep[] {
  const result: TranscriptStep[] = [];
  for (let index = 0; index < body.length; index++) {
    const { text, line } = body[index] ?? { text: "", line: 0 };
    if (!text.startsWith("$ ")) {
      const last = result.at(-1);
      if (last === undefined) throw new Error(`line ${line}: output before any $ command`);
      last.output.push(text);
      continue;
    }
    let command = text.slice(2);
    while (command.endsWith("\\") && index + 1 < body.length) {
      command = `${command.slice(0, -1).trimEnd()} ${(body[++index]?.text ?? "").trim()}`;
    }
    const exit = EXIT_COMMENT.exec(command);
    result.push({
      command: exit === null ? command : command.slice(0, exit.index),
      exit: exit === null ? 0 : Number(exit[1]),
      output: [],
      line,
    });
  }
  return result;
}

/**
 * What varies from run to run, made the same on both sides: times, request ids and UUIDs,
 * ports, key digests, new keys, durations, the values of `…_timestamp_seconds` metrics (Unix
 * times: a certificate's expiry, a reload's time), and spaces at line ends.
 */
export function normalized(text: string): string {
  return text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, "<time>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/\b\d{8}-\d{6}-[0-9a-f]{8}\b/g, "<session>")
    .replace(/\S*\/\.local\/state\//g, "~/.local/state/")
    .replace(/sha256:[0-9a-f]{64}/g, "sha256:<digest>")
    .replace(/\b[0-9a-f]{16}:(\d+)\b/g, "<file-hash>:$1")
    .replace(/(127\.0\.0\.1|localhost):\d+/g, "$1:<port>")
    .replace(/^(\w+_timestamp_seconds(\{[^}]*\})?) [\d.e+]+$/gm, "$1 <unix time>")
    .replace(/\bin \d+(\.\d+)? s\b/g, "in <n> s")
    .replace(/\b\d+(\.\d+)? ?ms\b/g, "<n> ms")
    .replace(/[ \t]+$/gm, "");
}

/** Whether `actual` lines are `expected` lines, `…` in expected standing for any lines. */
export function matchesTranscript(expected: readonly string[], actual: readonly string[]): boolean {
  const [first, ...rest] = expected;
  if (first === undefined) return actual.length === 0;
  if (first.trim() === "…") {
    for (let skip = 0; skip <= actual.length; skip++) {
      if (matchesTranscript(rest, actual.slice(skip))) return true;
    }
    return false;
  }
  return actual[0] === first && matchesTranscript(rest, actual.slice(1));
}
