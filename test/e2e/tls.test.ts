/** The real CLI against a local https server with a private certificate (NODE_EXTRA_CA_CERTS). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  selfSignedCertificate,
  startHttpsServer,
  type LocalHttpsServer,
  type SelfSigned,
} from "../support/local-tls.js";
import { runCli } from "./support/cli.js";

describe("petstore against a server with a private certificate", () => {
  let certificate: SelfSigned;
  let server: LocalHttpsServer;

  beforeAll(async () => {
    certificate = selfSignedCertificate();
    server = await startHttpsServer(certificate, '[{"petId":5,"quantity":1,"status":"sold"}]');
  });
  afterAll(async () => {
    await server.close();
    certificate.remove();
  });

  it("refuses it with the hint, and works once NODE_EXTRA_CA_CERTS trusts it", async () => {
    const args = ["--base-url", server.baseUrl, "inventory", "list"];
    const refused = await runCli(args, { env: { PETSTORE_API_KEY: "k" } });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("NODE_EXTRA_CA_CERTS=/path/ca.pem");

    const trusted = await runCli(args, {
      env: { PETSTORE_API_KEY: "k", NODE_EXTRA_CA_CERTS: certificate.certPath },
    });
    expect(trusted).toEqual({ code: 0, stdout: "5\t1\tsold\n", stderr: "" });
  }, 30_000);
});
