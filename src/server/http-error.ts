/** An error a route or hook throws to answer with a specific status and Error body. */
import type { ApiErrorBody } from "../api/types.js";

export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "HttpError";
    this.statusCode = statusCode;
    this.code = code;
    this.headers = headers;
  }

  /** The `{code, message, status}` body of the response. */
  toBody(): ApiErrorBody {
    return { code: this.code, message: this.message, status: this.statusCode };
  }
}
