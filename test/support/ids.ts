/** The largest petId (int64 max), written once: as a bigint and as the text on the wire. */
export const MAX_ID = 9223372036854775807n;
export const MAX_ID_TEXT = "9223372036854775807";
