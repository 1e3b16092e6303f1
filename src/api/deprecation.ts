/**
 * The deprecation of the pet lookup `GET /pets/{petId}`: the server sends these headers and
 * the OpenAPI document shows them, from the same dates.
 */

/** When the lookup was deprecated: 2026-01-01T00:00:00Z. */
const PET_LOOKUP_DEPRECATED_AT = new Date("2026-01-01T00:00:00Z");
/** When the lookup goes away: 2027-07-01T00:00:00Z. */
export const PET_LOOKUP_SUNSET_AT = new Date("2027-07-01T00:00:00Z");

/** `Deprecation: @<unix-seconds>` (RFC 9745) and `Sunset: <HTTP-date>` (RFC 8594). */
export const PET_LOOKUP_DEPRECATION_HEADERS = {
  deprecation: `@${PET_LOOKUP_DEPRECATED_AT.getTime() / 1000}`,
  sunset: PET_LOOKUP_SUNSET_AT.toUTCString(),
} as const;
