import { describe, expect, it } from "vitest";
import { describeNetworkFailure } from "../../src/client/network-failure.js";

const withCode = (code: string) => Object.assign(new Error(`x ${code}`), { code });

describe("describeNetworkFailure", () => {
  it("calls an aborted attempt a time-out", () => {
    expect(describeNetworkFailure(new Error("aborted"), true, 250)).toEqual({
      failure: "timeout",
      message: "no answer within 250 ms",
    });
  });

  it("calls undici's own time-outs time-outs", () => {
    expect(describeNetworkFailure(withCode("UND_ERR_HEADERS_TIMEOUT"), false, 9).failure).toBe(
      "timeout",
    );
  });

  it("explains common socket errors", () => {
    expect(describeNetworkFailure(withCode("ECONNRESET"), false, 1).message).toBe(
      "connection reset by the server (ECONNRESET)",
    );
  });

  it("finds the code inside an AggregateError of a dual-stack connect", () => {
    const error = new AggregateError([withCode("ECONNREFUSED"), withCode("ECONNREFUSED")], "");
    expect(describeNetworkFailure(error, false, 1)).toEqual({
      failure: "unreachable",
      code: "ECONNREFUSED",
      message: "connection refused (ECONNREFUSED)",
    });
  });

  it("keeps the message of an error it has no words for", () => {
    expect(describeNetworkFailure(withCode("EPROTO"), false, 1).message).toBe("x EPROTO (EPROTO)");
  });

  it.each([
    ["DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed certificate"],
    ["SELF_SIGNED_CERT_IN_CHAIN", "self-signed certificate in certificate chain"],
    ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "unable to verify the first certificate"],
    ["CERT_HAS_EXPIRED", "certificate has expired"],
    ["ERR_TLS_CERT_ALTNAME_INVALID", "Hostname/IP does not match certificate's altnames"],
  ])("calls %s a certificate that is not trusted, saying why", (code, reason) => {
    const error = Object.assign(new Error(reason), { code });
    expect(describeNetworkFailure(error, false, 1)).toEqual({
      failure: "untrusted-certificate",
      code,
      message: `the server's certificate is not trusted: ${reason} (${code})`,
    });
  });

  it("finds a certificate failure wrapped in another error's cause", () => {
    const cause = Object.assign(new Error("certificate has expired"), { code: "CERT_HAS_EXPIRED" });
    const error = Object.assign(new Error("secure proxy connection failed", { cause }), {
      code: "UND_ERR_PRX_TLS",
    });
    expect(describeNetworkFailure(error, false, 1)).toMatchObject({
      failure: "untrusted-certificate",
      message:
        "the server's certificate is not trusted: certificate has expired (CERT_HAS_EXPIRED)",
    });
  });

  it("says what a proxy answered when it refused the tunnel", () => {
    const error = Object.assign(new Error("Proxy response (502) !== 200 when HTTP Tunneling"), {
      code: "UND_ERR_ABORTED",
    });
    expect(describeNetworkFailure(error, false, 1)).toEqual({
      failure: "unreachable",
      message: "the proxy answered 502 Bad Gateway to CONNECT",
    });
  });

  it.each([
    [
      "Node 20's failed write (EPROTO)",
      Object.assign(
        new Error(
          "write EPROTO 802C8551347F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n",
        ),
        { code: "EPROTO", errno: -71, syscall: "write" },
      ),
      "EPROTO",
    ],
    [
      "a handshake error with OpenSSL's code",
      Object.assign(new Error("SSL routines::wrong version number"), {
        code: "ERR_SSL_WRONG_VERSION_NUMBER",
      }),
      "ERR_SSL_WRONG_VERSION_NUMBER",
    ],
    [
      "either, as the cause of undici's error",
      new Error("fetch failed", {
        cause: Object.assign(new Error("x"), { code: "ERR_SSL_WRONG_VERSION_NUMBER" }),
      }),
      "ERR_SSL_WRONG_VERSION_NUMBER",
    ],
  ])("calls TLS meeting a plain HTTP server what it is: %s", (_name, error, code) => {
    expect(describeNetworkFailure(error, false, 1)).toEqual({
      failure: "plain-http",
      code,
      message: "the server there speaks plain HTTP, not HTTPS (TLS: wrong version number)",
    });
  });
});
