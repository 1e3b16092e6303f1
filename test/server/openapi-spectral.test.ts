/**
 * Spectral's `oas` ruleset, the linter third parties run on OpenAPI documents, on the document
 * the server serves: as spectral:oas recommends it, not one warning; with every rule of the
 * ruleset turned on, only the findings named below, each with why it stays.
 */
import {
  Spectral,
  type ISpectralDiagnostic,
  type RulesetDefinition,
} from "@stoplight/spectral-core";
import { oas } from "@stoplight/spectral-rulesets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH, createTestApp, type TestApp } from "./fixture.js";

/** Findings of rules that `oas` leaves off by default, kept on purpose. */
const JUSTIFIED = {
  "license-url info.license":
    "OpenAPI 3.1 gives a license an SPDX `identifier` (MIT) or a `url`, never both",
  "contact-properties info.contact":
    "the project has no public web page or mail address yet; the contact names the maintainers",
};

let t: TestApp;
let served: Record<string, unknown>;
beforeAll(async () => {
  t = await createTestApp();
  served = (await t.app.inject({ url: "/v1/openapi.json", headers: AUTH })).json();
});
afterAll(() => t.close());

/** Spectral's findings on the served document: `oas` with its recommended rules, or all. */
async function lint(rules: "recommended" | "all") {
  const spectral = new Spectral();
  // The declared type of spectral-rulesets' `oas` is not assignable to spectral-core's own.
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, rules]] });
  const findings = await spectral.run(served);
  return findings.map((finding: ISpectralDiagnostic) => ({
    finding: `${String(finding.code)} ${finding.path.join(".")}`,
    severity: finding.severity,
    message: finding.message,
  }));
}

describe("spectral's oas ruleset on GET /v1/openapi.json", () => {
  it("finds no error and no warning with the recommended rules", async () => {
    expect(await lint("recommended")).toEqual([]);
  });

  it("finds nothing but the justified findings with every rule on", async () => {
    const findings = await lint("all");
    expect(findings.map(({ finding }) => finding).sort()).toEqual(Object.keys(JUSTIFIED).sort());
  });
});
