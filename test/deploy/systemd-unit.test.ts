/**
 * deploy/petstore.service, the systemd unit the package ships: what an operator relies on
 * (a reload that sends SIGHUP, a state directory, hardening Node.js survives), its ExecStart
 * held to the flags `petstore serve --help` lists, and `systemd-analyze verify` where it exists.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFake } from "../commands/fake-deps.js";
import { tempDir } from "../support/temp-dir.js";

const ROOT = join(import.meta.dirname, "..", "..");
const UNIT_NAME = "petstore.service";
const UNIT_PATH = join(ROOT, "deploy", UNIT_NAME);
const BIN = join(ROOT, "bin", "petstore.js");

const HAS_SYSTEMD_ANALYZE = spawnSync("systemd-analyze", ["--version"]).status === 0;

/** A unit file's directives: section → key → every value given, in order (comments dropped). */
type Unit = Map<string, Map<string, string[]>>;

/** Reads a unit file as systemd does: `#`/`;` comments, `\` continues a line. */
function parseUnit(text: string): Unit {
  const unit: Unit = new Map();
  let section: Map<string, string[]> | undefined;
  let pending = "";
  for (const raw of text.split("\n")) {
    const trimmed = raw.trim();
    if (pending === "" && (trimmed.startsWith("#") || trimmed.startsWith(";"))) continue;
    if (trimmed.endsWith("\\")) {
      pending += `${trimmed.slice(0, -1)} `;
      continue;
    }
    const line = pending + trimmed;
    pending = "";
    if (line === "") continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header?.[1] !== undefined) {
      section = new Map();
      unit.set(header[1], section);
      continue;
    }
    const equals = line.indexOf("=");
    if (section === undefined || equals < 0) throw new Error(`not a directive: ${line}`);
    const key = line.slice(0, equals).trim();
    const values = section.get(key) ?? [];
    values.push(line.slice(equals + 1).trim());
    section.set(key, values);
  }
  return unit;
}

/** The one value of `key` in `section`; fails when it is absent or given more than once. */
function valueOf(unit: Unit, section: string, key: string): string {
  const values = unit.get(section)?.get(key) ?? [];
  expect(values, `${section} ${key}=`).toHaveLength(1);
  return values[0] ?? "";
}

/** The options `petstore serve --help` lists, each with whether it takes a value. */
async function serveHelpOptions(): Promise<Map<string, boolean>> {
  const help = await runFake(["serve", "--help"], { env: {} });
  expect(help.code).toBe(0);
  const options = new Map<string, boolean>();
  for (const [, flag, value] of help.stdout.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)( <[\w-]+>)?/gm)) {
    if (flag !== undefined) options.set(flag, value !== undefined);
  }
  return options;
}

const text = readFileSync(UNIT_PATH, "utf8");
const unit = parseUnit(text);
const execStart = valueOf(unit, "Service", "ExecStart").split(/\s+/);

describe("deploy/petstore.service", () => {
  it("is shipped in the package, under the name systemctl reload petstore expects", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      files: string[];
    };
    expect(pkg.files).toContain("deploy/petstore.service");
    expect([...unit.keys()]).toEqual(["Unit", "Service", "Install"]);
    expect(valueOf(unit, "Install", "WantedBy")).toBe("multi-user.target");
  });

  it("runs petstore serve on a SQLite file in its state directory, with the keys file", () => {
    expect(valueOf(unit, "Service", "Type")).toBe("exec");
    expect(execStart[0]).toMatch(/^\/.*\/petstore$/);
    expect(execStart[1]).toBe("serve");
    expect(valueOf(unit, "Service", "StateDirectory")).toBe("petstore");
    const db = execStart[execStart.indexOf("--db") + 1];
    expect(db).toMatch(/^\/var\/lib\/petstore\/[\w.-]+\.db$/);
    expect(execStart[execStart.indexOf("--api-keys-file") + 1]).toBe("/etc/petstore/keys");
    expect(valueOf(unit, "Service", "EnvironmentFile")).toBe("-/etc/petstore/env");
    expect(valueOf(unit, "Service", "User")).toBe("petstore");
  });

  it("reloads with SIGHUP, stops with SIGTERM within a time-out, restarts after a failure", () => {
    expect(valueOf(unit, "Service", "ExecReload")).toMatch(
      /^\/(usr\/)?bin\/kill (-HUP|-s HUP|--signal HUP) \$MAINPID$/,
    );
    expect(valueOf(unit, "Service", "KillSignal")).toBe("SIGTERM");
    expect(valueOf(unit, "Service", "TimeoutStopSec")).toMatch(/^\d+s?$/);
    expect(valueOf(unit, "Service", "Restart")).toBe("on-failure");
    // A configuration error (exit 2) is not retried: a restart cannot fix it.
    expect(valueOf(unit, "Service", "RestartPreventExitStatus")).toBe("2");
  });

  it("logs into the journal, reading each line's <N> priority prefix", () => {
    expect(valueOf(unit, "Service", "StandardError")).toBe("journal");
    expect(valueOf(unit, "Service", "SyslogLevelPrefix")).toBe("yes");
    expect(text).toMatch(/^#.*journalctl -u petstore -p err/m);
  });

  it("is hardened as far as Node.js allows, and never forbids the JIT's W+X memory", () => {
    const hardening: Record<string, string> = {
      NoNewPrivileges: "yes",
      ProtectSystem: "strict",
      ProtectHome: "yes",
      PrivateTmp: "yes",
      PrivateDevices: "yes",
      ProtectKernelTunables: "yes",
      ProtectKernelModules: "yes",
      ProtectKernelLogs: "yes",
      ProtectControlGroups: "yes",
      ProtectClock: "yes",
      ProtectHostname: "yes",
      RestrictAddressFamilies: "AF_INET AF_INET6 AF_UNIX",
      RestrictNamespaces: "yes",
      RestrictRealtime: "yes",
      RestrictSUIDSGID: "yes",
      LockPersonality: "yes",
      SystemCallArchitectures: "native",
      SystemCallFilter: "@system-service",
      CapabilityBoundingSet: "",
      UMask: "0077",
    };
    for (const [key, value] of Object.entries(hardening)) {
      expect(valueOf(unit, "Service", key), key).toBe(value);
    }
    // V8 writes machine code into memory it then runs: Node.js does not start with it.
    expect(unit.get("Service")?.has("MemoryDenyWriteExecute")).toBe(false);
    expect(text).toMatch(/^#.*MemoryDenyWriteExecute/m);
  });

  it("passes petstore serve only flags its --help lists, each with its value", async () => {
    const options = await serveHelpOptions();
    expect(options.get("--api-keys-file")).toBe(true);
    execStart.slice(2).forEach((word, index, words) => {
      if (!word.startsWith("-")) {
        // A value must follow a flag that takes one.
        expect(words[index - 1]?.startsWith("--"), `${word} follows a flag`).toBe(true);
        return;
      }
      expect([...options.keys()], `ExecStart's ${word}`).toContain(word);
      if (options.get(word) === true) expect(words[index + 1] ?? "--").not.toMatch(/^-/);
    });
  });

  it("names in its comments only flags that petstore serve --help lists", async () => {
    const options = await serveHelpOptions();
    const commented = text
      .split("\n")
      .filter((line) => line.trimStart().startsWith("#"))
      .join("\n");
    const serveFlags = [...commented.matchAll(/(?<![\w-])(--[a-z][\w-]*)/g)]
      .map(([flag]) => flag)
      // Flags of other commands the install notes use.
      .filter((flag) => !["--system", "--home-dir", "--shell", "--now", "--scope"].includes(flag));
    expect(serveFlags).toContain("--metrics-port");
    for (const flag of serveFlags) expect([...options.keys()], flag).toContain(flag);
  });
});

describe("systemd-analyze verify on deploy/petstore.service", () => {
  let temp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    temp = tempDir("petstore-systemd-unit-");
  });
  afterAll(() => {
    temp.remove();
  });

  it("finds no error and no warning in the unit", ({ skip }) => {
    skip(
      !HAS_SYSTEMD_ANALYZE,
      "systemd-analyze is not installed here (it comes with systemd) to run this check",
    );
    // verify checks that ExecStart's program exists: this checkout's, run by this Node.js,
    // instead of the /usr/local/bin/petstore an installation has. Nothing else is changed.
    const [program, ...args] = execStart;
    expect(program).toBeDefined();
    const copy = text.replace(
      `ExecStart=${program ?? ""} `,
      `ExecStart=${process.execPath} ${BIN} `,
    );
    expect(copy).not.toBe(text);
    const path = join(temp.dir, UNIT_NAME);
    writeFileSync(path, copy);
    expect(parseUnit(copy).get("Service")?.get("ExecStart")?.[0]?.split(/\s+/)).toEqual([
      process.execPath,
      BIN,
      ...args,
    ]);

    const result = spawnSync("systemd-analyze", ["verify", path], {
      encoding: "utf8",
      env: { ...process.env, SYSTEMD_LOG_COLOR: "0", SYSTEMD_PAGER: "" },
    });
    // Only what it says about this unit counts: other units on the machine are not ours.
    const aboutUnit = `${result.stdout}${result.stderr}`
      .split("\n")
      .filter((line) => line.includes(UNIT_NAME) || line.includes(temp.dir));
    expect(aboutUnit).toEqual([]);
    expect(result.status).toBe(0);
  });

  it("would report a wrong directive in the unit (the check is not blind)", ({ skip }) => {
    skip(
      !HAS_SYSTEMD_ANALYZE,
      "systemd-analyze is not installed here (it comes with systemd) to run this check",
    );
    mkdirSync(join(temp.dir, "misspelt"));
    const path = join(temp.dir, "misspelt", UNIT_NAME);
    writeFileSync(
      path,
      text
        .replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath}`)
        .replace("ProtectClock=yes", "ProtectClok=yes"),
    );
    const result = spawnSync("systemd-analyze", ["verify", path], { encoding: "utf8" });
    expect(result.stderr).toContain("Unknown key 'ProtectClok' in section [Service]");
  });
});
