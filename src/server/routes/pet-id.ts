/** The `petId` path parameter: a positive int64, parsed exactly or rejected with 400. */
import type { FastifyRequest } from "fastify";
import { ERROR_CODES } from "../../api/error-codes.js";
import { parsePetId } from "../../api/limits.js";
import { HttpError } from "../http-error.js";

/** Returns the request's `petId` as a bigint or throws 400 `invalid_pet_id`. */
export function petIdOf(request: FastifyRequest<{ Params: { petId: string } }>): bigint {
  const text = request.params.petId;
  const petId = parsePetId(text);
  if (petId === undefined) {
    throw new HttpError(
      400,
      ERROR_CODES.invalidPetId,
      `petId must be a positive 64-bit integer, got "${text.slice(0, 40)}"`,
    );
  }
  return petId;
}
