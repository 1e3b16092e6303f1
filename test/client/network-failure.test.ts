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
      message: "connection refused (ECONNREFUSED)",
    });
  });

  it("keeps the message of an error it has no words for", () => {
    expect(describeNetworkFailure(withCode("CERT_HAS_EXPIRED"), false, 1).message).toBe(
      "x CERT_HAS_EXPIRED (CERT_HAS_EXPIRED)",
    );
  });
});
