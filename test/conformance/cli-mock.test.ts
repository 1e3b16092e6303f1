/**
 * Client portability: the real `petstore` binary against a server we did not write, Stoplight
 * Prism's mock of openapi/inventory.json. Prism validates each request the CLI sends against
 * the document (a request it finds wrong is a test failure) and answers from the document:
 * - static (`prism mock`): the document's examples, so the output can be checked exactly;
 * - dynamic (`prism mock -d --seed ...`): random data that fits the schemas.
 *
 * Prism serves the document's paths at its root, so its URL is the base URL (see prism.ts).
 * Error paths are those a mock can honestly produce from the CLI: a 400 for a petId Prism
 * cannot represent, a 404 for a base URL it does not serve, the documented 403 through a proxy
 * that adds `Prefer: code=403` (Prism's way to pick a documented status). A 401 cannot be
 * produced: Prism accepts any `Bearer` token and the CLI always sends one (without a key it
 * stops first, exit 2).
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt } from "../e2e/support/binary.js";
import { runCli, type CliResult } from "../e2e/support/cli.js";
import { DOCUMENT, startPrism, stopAllPrisms, type PrismProcess } from "./prism.js";

const KEY = "any-key-prism-accepts";

interface MediaType {
  examples: Record<string, { value: unknown }>;
}
interface Operation {
  responses: Record<string, { content: Record<string, MediaType> }>;
}
const document = JSON.parse(readFileSync(DOCUMENT, "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
};

/** The first example of an operation's JSON response: what the static mock answers with. */
function example(path: string, method: string, status: string): unknown {
  const media = document.paths[path]?.[method]?.responses[status]?.content["application/json"];
  const first = Object.values(media?.examples ?? {})[0];
  if (!first) throw new Error(`no example for ${method} ${path} ${status}`);
  return first.value;
}

let mock: PrismProcess;
let dynamic: PrismProcess;

beforeAll(async () => {
  assertBuilt();
  [mock, dynamic] = await Promise.all([
    startPrism(["mock", DOCUMENT]),
    startPrism(["mock", DOCUMENT, "--dynamic", "--seed", "petstore"]),
  ]);
}, 30_000);

afterAll(async () => {
  await stopAllPrisms();
});

/**
 * Runs `petstore --base-url <prism> ...args` and returns its result with the violations Prism
 * logged while it ran.
 */
async function petstore(
  prism: PrismProcess,
  args: readonly string[],
  baseUrl = prism.url,
): Promise<CliResult & { violations: string[] }> {
  const before = prism.violationLines().length;
  const result = await runCli(["--base-url", baseUrl, ...args], {
    env: { PETSTORE_API_KEY: KEY },
  });
  return { ...result, violations: prism.violationLines().slice(before) };
}

/**
 * A forwarding proxy in front of a Prism mock that adds `Prefer: <prefer>` to every request,
 * so the mock answers the documented status the CLI itself cannot ask for (`code=403`).
 */
async function preferringProxy(
  prism: PrismProcess,
  prefer: string,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const upstream = new URL(prism.url);
  const server = createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, prefer },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

describe("petstore against prism mock (the document's examples)", () => {
  it("inventory list --json prints the entries", async () => {
    const result = await petstore(mock, ["inventory", "list", "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "", violations: [] });
    expect(JSON.parse(result.stdout)).toEqual(example("/inventory", "get", "200"));
  });

  it("inventory list --csv prints a header and one row per entry", async () => {
    const result = await petstore(mock, ["inventory", "list", "--csv"]);
    const rows = (example("/inventory", "get", "200") as Record<string, unknown>[]).map(
      (entry) => `${String(entry.petId)},${String(entry.quantity)},${String(entry.status)}\n`,
    );
    expect(result).toEqual({
      code: 0,
      stdout: ["petId,quantity,status\n", ...rows].join(""),
      stderr: "",
      violations: [],
    });
  });

  it("inventory set sends a PATCH the document accepts and prints the updated entry", async () => {
    const piped = await petstore(mock, ["inventory", "set", "42", "7"]);
    expect(piped).toEqual({ code: 0, stdout: "42\t7\tsold\n", stderr: "", violations: [] });
    const json = await petstore(mock, ["inventory", "set", "42", "7", "--json"]);
    expect(json).toMatchObject({ code: 0, stderr: "", violations: [] });
    expect(JSON.parse(json.stdout)).toEqual(example("/inventory/{petId}", "patch", "200"));
  });

  it("inventory get prints the document's entry in every format", async () => {
    const entry = example("/inventory/{petId}", "get", "200") as Record<string, unknown>;
    const json = await petstore(mock, ["inventory", "get", "42", "--json"]);
    expect(json).toMatchObject({ code: 0, stderr: "", violations: [] });
    expect(JSON.parse(json.stdout)).toEqual(entry);
    const fields = [entry.petId, entry.quantity, entry.status].map(String);
    expect(await petstore(mock, ["inventory", "get", "42"])).toEqual({
      code: 0,
      stdout: `${fields.join("\t")}\n`,
      stderr: "",
      violations: [],
    });
    expect(await petstore(mock, ["inventory", "get", "42", "--csv"])).toEqual({
      code: 0,
      stdout: `petId,quantity,status\n${fields.join(",")}\n`,
      stderr: "",
      violations: [],
    });
  });

  it("inventory set --if-quantity sends an If-Match and Idempotency-Key the document accepts", async () => {
    const result = await petstore(mock, ["inventory", "set", "42", "7", "--if-quantity", "3"]);
    expect(result).toEqual({ code: 0, stdout: "42\t7\tsold\n", stderr: "", violations: [] });
  });

  it("inventory adjust reads, then sends a conditional PATCH the document accepts", async () => {
    const result = await petstore(mock, ["inventory", "adjust", "42", "+1", "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "", violations: [] });
    expect(JSON.parse(result.stdout)).toEqual(example("/inventory/{petId}", "patch", "200"));
  });

  it("pets get warns on stderr about Prism's own Deprecation header and prints the pet", async () => {
    // Prism's mock sends `deprecation: true` (an early draft of RFC 9745) for every deprecated
    // operation instead of the documented `@<unix-seconds>`, and reports that as a violation
    // of its own response; the CLI still warns, with the Sunset date.
    const result = await petstore(mock, ["pets", "get", "1"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("1\tRex\tavailable\tDogs\tpuppy\thttps://example.com/rex.jpg\n");
    expect(result.stderr).toBe(
      `warning: the server marks GET ${mock.url}/pets/1 as deprecated; it stops working after 2027-07-01\n`,
    );
    expect(
      result.violations.filter((line) => !line.includes("response.header.deprecation")),
    ).toEqual([]);
  });

  it("orders list --json prints the orders", async () => {
    const result = await petstore(mock, ["orders", "list", "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "", violations: [] });
    expect(JSON.parse(result.stdout)).toEqual(example("/store/orders", "get", "200"));
  });

  it("exit 6 with the server's code and message on a 400 (Prism rejects a petId beyond 2^53)", async () => {
    // A valid int64, but Prism clamps int64 to Number.MAX_SAFE_INTEGER and answers with the
    // document's 400 example. (Against PATCH it now answers the 422 example instead: Prism
    // prefers a documented 422 for a request it finds invalid.)
    const result = await petstore(mock, ["inventory", "get", "9007199254740992"]);
    expect(result.code).toBe(6);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      'error: petId must be a positive 64-bit integer, got "abc" (invalid_pet_id, HTTP 400)\n' +
        "hint: check the petId: the server's message above says what it rejected\n",
    );
    expect(result.violations).toEqual([
      expect.stringContaining(
        "Violation: request.path.petid Request path parameter petid must be <=",
      ),
    ]);
  });

  it("exit 4 with the read-only hint on the document's 403 (a read key's PATCH)", async () => {
    const proxy = await preferringProxy(mock, "code=403");
    try {
      const result = await petstore(mock, ["inventory", "set", "42", "7"], proxy.url);
      const { message } = example("/inventory/{petId}", "patch", "403") as { message: string };
      expect(result).toEqual({
        code: 4,
        stdout: "",
        stderr:
          `error: ${message} (forbidden, HTTP 403)\n` +
          "hint: the API key (from PETSTORE_API_KEY) was accepted but is read-only (scope read): it can list and get stock, not change it; use a key of scope write\n",
        violations: [],
      });
    } finally {
      await proxy.stop();
    }
  });

  it("exit 5 on a 404 that is not an Error body (a base URL the server does not serve)", async () => {
    const result = await petstore(mock, ["inventory", "list"], `${mock.url}/v1`);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: .*\(HTTP 404\)\n/);
  });

  it("exit 2 without a key, before any request reaches the server", async () => {
    const before = mock.output().length;
    const result = await runCli(["--base-url", mock.url, "inventory", "list"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: no API key: set PETSTORE_API_KEY/);
    expect(mock.output().slice(before)).not.toContain("Request received");
  });
});

describe("petstore against prism mock --dynamic (random data that fits the schemas)", () => {
  const entry = {
    petId: expect.any(Number) as unknown,
    quantity: expect.any(Number) as unknown,
    status: expect.stringMatching(/^(available|pending|sold)$/) as unknown,
  };

  it("inventory list --json prints every generated entry", async () => {
    const result = await petstore(dynamic, ["inventory", "list", "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "", violations: [] });
    const entries = JSON.parse(result.stdout) as unknown[];
    expect(entries.length).toBeGreaterThan(0);
    for (const item of entries) expect(item).toEqual(entry);
  });

  it("inventory list --csv prints a row per generated entry", async () => {
    const result = await petstore(dynamic, ["inventory", "list", "--csv"]);
    expect(result).toMatchObject({ code: 0, stderr: "", violations: [] });
    const [header, ...rows] = result.stdout.trimEnd().split("\n");
    expect(header).toBe("petId,quantity,status");
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatch(/^[1-9]\d*,\d+,(available|pending|sold)$/);
  });

  it("inventory get --json prints whatever entry the server answers with", async () => {
    const result = await petstore(dynamic, ["inventory", "get", "42", "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "", violations: [] });
    expect(JSON.parse(result.stdout)).toEqual(entry);
  });

  it("inventory set --json prints whatever entry the server answers with", async () => {
    const result = await petstore(dynamic, ["inventory", "set", "42", "7", "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "", violations: [] });
    expect(JSON.parse(result.stdout)).toEqual(entry);
  });
});
