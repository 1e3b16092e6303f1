/** Builds the OpenAPI 3.1 document of the service from the shared schemas. */
import { PET_LOOKUP_DEPRECATION_HEADERS, PET_LOOKUP_SUNSET_AT } from "./deprecation.js";
import {
  batchForbiddenExamples,
  batchKeyReusedExamples,
  batchRejectedExamples,
  batchRequestExamples,
  batchResponseExamples,
  batchTooLargeExamples,
  invalidBatchExamples,
} from "./openapi-batch-examples.js";
import {
  forbiddenExamples,
  idempotencyKeyReusedExamples,
  inventoryEntryExamples,
  inventoryItemExamples,
  inventoryListExamples,
  inventoryUpdateExamples,
  invalidBodyExamples,
  invalidHeaderExamples,
  invalidLimitExamples,
  invalidReasonExamples,
  inventoryChangesExamples,
  invalidPetIdExamples,
  orderListExamples,
  otherErrorExamples,
  petExamples,
  petNotFoundExamples,
  preconditionFailedExamples,
  unauthorizedExamples,
  unavailableExamples,
  type Example,
} from "./openapi-examples.js";
import {
  changeFeedExamples,
  feedUnavailableExamples,
  invalidFeedParameterExamples,
} from "./openapi-feed-examples.js";
import {
  DEFAULT_FEED_LIMIT,
  MAX_BATCH_CHANGES,
  MAX_FEED_LIMIT,
  MAX_FEED_WAIT_SECONDS,
} from "./limits.js";
import { MAX_CHANGE_REASON_LENGTH } from "./change-reason.js";
import {
  CHANGE_REASON_PATTERN,
  IF_MATCH_PATTERN,
  MAX_CHANGE_REASON_BYTES,
} from "./openapi-header-patterns.js";
import {
  batchChangeResultSchema,
  batchCountChangeSchema,
  batchDeltaSchema,
  batchRejectionSchema,
  batchRequestSchema,
  batchResponseSchema,
  batchSetSchema,
  changeFeedPageSchema,
  errorSchema,
  inventoryChangeSchema,
  inventoryItemSchema,
  inventoryListSchema,
  inventoryUpdateSchema,
  orderSchema,
  petSchema,
  petStatusSchema,
} from "./schemas.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const json = (schema: object, examples: Record<string, Example>) => ({
  "application/json": { schema, examples },
});

/** An error response whose body is the Error schema with `status` equal to the HTTP status. */
const errorResponse = (status: number, description: string, examples: Record<string, Example>) => ({
  description,
  content: json({ allOf: [ref("Error"), { properties: { status: { const: status } } }] }, examples),
});

const responses = {
  unauthorized: {
    ...errorResponse(401, "The API key is missing or invalid", unauthorizedExamples),
    headers: {
      "WWW-Authenticate": {
        description:
          'The Bearer challenge (RFC 6750): `Bearer realm="petstore"`, with `error="invalid_token"` when a key was sent but is not accepted',
        required: true,
        schema: { type: "string", pattern: "^Bearer ", examples: ['Bearer realm="petstore"'] },
      },
    },
  },
  notFound: errorResponse(
    404,
    "The requested resource (the pet) could not be found",
    petNotFoundExamples,
  ),
  unavailable: {
    ...errorResponse(
      503,
      "The server cannot make the write now, and nothing was changed; retry after `Retry-After`. `unavailable`: another process (a backup, a second server) held the database's lock for longer than the server waits (5 s by default), or the database cannot be reached. `storage_full`: the server's storage is full; the write succeeds once space is freed on the server",
      unavailableExamples,
    ),
    headers: {
      "Retry-After": {
        description: "Seconds to wait before retrying",
        required: true,
        schema: { type: "string", pattern: "^[0-9]+$", examples: ["1"] },
      },
    },
  },
  other: {
    description:
      "Any other error: unsupported media type, body too large, the database locked by another process for longer than the server waits (503 `unavailable`, with `Retry-After`), server error",
    content: json(ref("Error"), otherErrorExamples),
  },
};

/** The ETag of an entry: its quantity as a quoted decimal. */
const etagHeader = (description: string) => ({
  ETag: {
    description,
    required: true,
    schema: { type: "string", pattern: '^"(0|[1-9][0-9]*)"$', examples: ['"7"'] },
  },
});

/**
 * `Inventory-Seq`: the change-feed seq of the last change an inventory answer reflects, read
 * in the same snapshot as its quantities (src/server/routes/inventory.ts and
 * inventory-batch.ts). `which` says which seq that is for the answer; a write's answer
 * replayed for a repeated Idempotency-Key has the one it was first given, unless its record
 * was kept by a server that kept none, so there the header is not required.
 */
const inventorySeqHeader = (which: string, { replayable }: { replayable: boolean }) => ({
  "Inventory-Seq": {
    description:
      `The change-feed seq of the last change the answer reflects: ${which}. The quantities and the seq come from one snapshot: every change with a \`seq\` up to it is in the answer, none after it. ` +
      (replayable
        ? "A replayed answer (`Idempotent-Replayed: true`) has the one it was first given with (the body holds as of it), unless a server older than schema version 13 kept its record; every other answer of this status has it. "
        : "Every answer of this status has it. ") +
      "Send it as a count's `asOf` when the shelf was counted at this answer, and follow the change feed from it (`after`) for what changed since",
    required: !replayable,
    schema: { type: "string", pattern: "^(0|[1-9][0-9]*)$", examples: ["1042"] },
  },
});

/** Sent on an answer replayed for a repeated Idempotency-Key (absent otherwise). */
const replayedHeader = {
  "Idempotent-Replayed": {
    description:
      "`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`: nothing was changed now",
    required: false,
    schema: { type: "string", enum: ["true"] },
  },
};

/** The `Idempotency-Key` request header of a write, described for its operation. */
const idempotencyKeyParameter = (description: string) => ({
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description,
  schema: {
    type: "string",
    minLength: 1,
    maxLength: 255,
    pattern: "^[!-~]+$",
    examples: ["0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b"],
  },
});

/**
 * The `X-Change-Reason` request header of a write, described for its operation, then the rule
 * (api/change-reason.ts) in words: the schema counts the bytes of the header, one character
 * each, so `maxLength` alone cannot say 200 characters; its pattern does.
 */
const changeReasonParameter = (description: string) => ({
  name: "X-Change-Reason",
  in: "header",
  required: false,
  description: `${description}: 1 to ${MAX_CHANGE_REASON_LENGTH} characters (Unicode code points: "é" is one, "🐈" is one), none of them a control character (U+0000-U+001F, U+007F-U+009F) or a line or paragraph separator (U+2028, U+2029), sent as their UTF-8 bytes, one header character per byte ("März" is sent as "MÃ¤rz"), so at most ${MAX_CHANGE_REASON_BYTES} bytes. \`minLength\`, \`maxLength\` and \`pattern\` apply to those bytes; the pattern accepts exactly the UTF-8 texts of the rule. Bytes that are not UTF-8, an empty or longer reason, or a refused character: 400 \`invalid_header\`, nothing changed`,
  schema: {
    type: "string",
    minLength: 1,
    maxLength: MAX_CHANGE_REASON_BYTES,
    pattern: CHANGE_REASON_PATTERN,
    examples: ["recount after delivery"],
  },
});

/** The conditional and exactly-once request headers of a PATCH. */
const writeHeaderParameters = [
  {
    name: "If-Match",
    in: "header",
    required: false,
    description:
      'Write only if the entry\'s current ETag matches: `"7"` (the quantity is 7), a list `"3", "7"` (any of them), or `*` (any existing entry). Compared strongly (RFC 9110): a weak tag `W/"7"` never matches, and neither does a tag that is no quantity (`"07"`, `"4,5"`). When it does not match: 412 with the current `ETag`, nothing changed. The grammar is RFC 9110\'s, `If-Match = "*" / #entity-tag`: `*` alone, or a comma-separated list of at least one entity-tag (`[W/]"…"`, the quotes holding `!`, `#` to `~` or obs-text, the bytes 0x80-0xFF; a comma inside the quotes is part of the tag), with optional spaces and tabs around each comma, empty elements allowed (`"3",,"7"`). Malformed (`*` in a list, an unquoted tag, a space inside the quotes): 400 `invalid_header`',
    schema: {
      type: "string",
      pattern: IF_MATCH_PATTERN,
      examples: ['"7"'],
    },
  },
  idempotencyKeyParameter(
    "Makes the PATCH exactly-once: 1 to 255 visible ASCII characters, a new random value (a UUID) per intended change, reused by its retries. The server keeps, per API key, the key with a fingerprint of the request (petId, body, If-Match) and its answer (200, 404 or 412) for 24 hours. The same key and request again answers the stored status, body and ETag with `Idempotent-Replayed: true` and changes nothing; the same key with a different request is 422 `idempotency_key_reused`. Malformed: 400 `invalid_header`",
  ),
  changeReasonParameter("Why the change is made, kept in the entry's history"),
];

/** The request headers of a batch: exactly-once for the whole batch, one reason for every change. */
const batchHeaderParameters = [
  idempotencyKeyParameter(
    "Makes the batch exactly-once: 1 to 255 visible ASCII characters, a new random value (a UUID) per batch, reused by its retries. The server keeps, per API key, the key with a fingerprint of the batch as read (its changes, `atomic` and `dryRun`; spacing and field order do not matter) and its answer (200 or 409) for 24 hours. The same key and batch again answers the stored status and body with `Idempotent-Replayed: true` and changes nothing; the same key with a different batch is 422 `idempotency_key_reused`. A dry run keeps no record. Malformed: 400 `invalid_header`",
  ),
  changeReasonParameter(
    "Why the changes are made, kept in the history record of every change the batch applies",
  ),
];

/** The query parameters of the change feed. */
const feedParameters = [
  {
    name: "after",
    in: "query",
    required: false,
    description:
      "The cursor: the page lists the records with a `seq` above it. 0 starts at the first change ever kept; after that, send the `next` of the previous page. Decimal digits only, no leading zeros (`01` is refused)",
    schema: { type: "integer", format: "int64", minimum: 0, default: 0 },
  },
  {
    name: "limit",
    in: "query",
    required: false,
    description: `How many records at most: 1 to ${MAX_FEED_LIMIT}. A page holding fewer records was the end of the feed when it was read`,
    schema: {
      type: "integer",
      minimum: 1,
      maximum: MAX_FEED_LIMIT,
      default: DEFAULT_FEED_LIMIT,
    },
  },
  {
    name: "wait",
    in: "query",
    required: false,
    description: `How many seconds to wait, 0 to ${MAX_FEED_WAIT_SECONDS}, when nothing is past \`after\`: the answer comes as soon as a change commits (through any instance) or, when none does, with an empty page once the time is up. 0 answers at once`,
    schema: { type: "integer", minimum: 0, maximum: MAX_FEED_WAIT_SECONDS, default: 0 },
  },
];

const petIdParameter = (description: string) => ({
  name: "petId",
  in: "path",
  required: true,
  description,
  schema: { type: "integer", format: "int64", minimum: 1 },
});

/** The headers every answer of the deprecated pet lookup carries. */
const deprecationHeaders = {
  Deprecation: {
    description: "When the operation was deprecated, as `@<unix-seconds>` (RFC 9745)",
    required: true,
    schema: {
      type: "string",
      pattern: "^@[0-9]+$",
      examples: [PET_LOOKUP_DEPRECATION_HEADERS.deprecation],
    },
  },
  Sunset: {
    description: "When the operation stops working, as an HTTP-date (RFC 8594)",
    required: true,
    schema: {
      type: "string",
      pattern:
        "^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$",
      examples: [PET_LOOKUP_DEPRECATION_HEADERS.sunset],
    },
  },
};

/** The document served at `/v1/openapi.json`. */
export function buildOpenApiDocument() {
  return {
    openapi: "3.1.0",
    info: {
      title: "Pet Store Inventory Service",
      version: "1.0.0",
      description: "Stock levels for the animals (pets) of a pet store.",
      contact: { name: "The maintainers of petstore-inventory" },
      license: { name: "MIT", identifier: "MIT" },
    },
    // Relative: resolved against where this document is served, `<origin>/v1/openapi.json`.
    servers: [{ url: "/v1", description: "This server" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "inventory", description: "Stock levels" },
      { name: "pets", description: "Pet records" },
      { name: "store", description: "Store orders" },
    ],
    paths: {
      "/inventory": {
        get: {
          operationId: "listInventory",
          tags: ["inventory"],
          summary: "Returns the current stock levels for all pets in the store",
          description:
            "Every pet's entry, in ascending `petId` order, in one array (no paging), and `Inventory-Seq`, the seq of the last change the entries reflect: all of them were read in one snapshot. A `petId` above 2^53 is written in exact digits: read it with a JSON parser that keeps int64. A GET that starts after a write was answered sees that write, whichever instance it went through. A read key (scope `read`) may use it.",
          responses: {
            "200": {
              description: "An array of inventory entries",
              headers: inventorySeqHeader("the store's latest when the entries were read", {
                replayable: false,
              }),
              content: json(ref("InventoryList"), inventoryListExamples),
            },
            "401": responses.unauthorized,
            default: responses.other,
          },
        },
      },
      "/inventory/batch": {
        post: {
          operationId: "applyInventoryBatch",
          tags: ["inventory"],
          summary: "Applies many changes of stock in one request and one transaction",
          description: `Sets (\`quantity\`), relative changes (\`delta\`) and counts (\`count\` with \`asOf\`), 1 to ${MAX_BATCH_CHANGES} in a body of up to 2 MiB, applied in the order given, each seeing the ones before it (two deltas on one pet both count). A set or a delta may name the quantity it expects (\`ifQuantity\`); any change may carry a business reference (\`ref\`): a \`(petId, ref)\` applies once, ever, and comes back \`duplicate\` afterwards, so a file of sales run twice counts each sale once. A count is true as of the feed seq \`asOf\` (the \`Inventory-Seq\` of the read made when the shelf was counted): the quantity becomes \`count\` plus the net of the pet's changes committed after \`asOf\`, computed in the transaction that writes it, so a sale that commits meanwhile is either in that net or applied on top, never lost and never twice; its result adds \`book\`, \`since\`, \`counted\` and \`variance\`. Each applied change appends a history record carrying its \`ref\`. A 200 means every \`changed\` result is on disk. A number is read by its value, as JSON has it: \`4.0\` is 4; a \`petId\` above 2^53 must be written in digits. Any method but POST is 405 with \`Allow: POST\`.`,
          parameters: batchHeaderParameters,
          requestBody: {
            required: true,
            content: json(ref("BatchRequest"), batchRequestExamples),
          },
          responses: {
            "200": {
              description:
                "The batch was evaluated (and, unless `dryRun`, written): the counts and one result per change, in request order. Failed changes of a batch that is not atomic were not applied; the others were. Replayed, the answer an earlier request with the same `Idempotency-Key` got",
              headers: {
                ...inventorySeqHeader(
                  "the batch's own last change; when it changed nothing (a dry run, nothing applied), the store's latest when its results were evaluated",
                  { replayable: true },
                ),
                ...replayedHeader,
              },
              content: json(ref("BatchResponse"), batchResponseExamples),
            },
            "400": errorResponse(
              400,
              "A change breaks a rule (the message names it: `changes[3].delta`), an object of the body names a field twice, a count's `asOf` is later than the latest change (the message names the latest seq), the body is not a batch or not JSON (`invalid_json`), or Idempotency-Key or X-Change-Reason is malformed (`invalid_header`): nothing was changed. A server older than counts answers a count change 400 `invalid_body` too, naming `count` as no field of a change",
              { ...invalidBatchExamples, ...invalidHeaderExamples, ...invalidReasonExamples },
            ),
            "401": responses.unauthorized,
            "403": errorResponse(
              403,
              "The API key is accepted but read-only (scope `read`: GET only): nothing was changed",
              batchForbiddenExamples,
            ),
            "409": {
              description:
                "`batch_rejected`: the batch is atomic and a change failed, so nothing was written. The Error body with the results, the failed ones saying why (or, replayed, the answer an earlier request with the same `Idempotency-Key` got)",
              headers: {
                ...inventorySeqHeader(
                  "the store's latest when its results were evaluated (nothing was written)",
                  { replayable: true },
                ),
                ...replayedHeader,
              },
              content: json(ref("BatchRejection"), batchRejectedExamples),
            },
            "413": errorResponse(
              413,
              "The body is larger than 2 MiB: nothing was changed",
              batchTooLargeExamples,
            ),
            "415": errorResponse(415, "The body is not `application/json`: nothing was changed", {
              unsupportedMediaType: otherErrorExamples.unsupportedMediaType,
            }),
            "422": errorResponse(
              422,
              "The `Idempotency-Key` was already used (by this API key, within 24 hours) for a different batch: nothing was changed",
              batchKeyReusedExamples,
            ),
            "503": responses.unavailable,
            default: responses.other,
          },
        },
      },
      "/inventory/changes": {
        get: {
          operationId: "listInventoryChanges",
          tags: ["inventory"],
          summary: "Returns the changes of stock of every pet after a cursor, in commit order",
          description: `The change feed: every history record once, in the order the changes committed (\`seq\`), paged by a cursor. A page lists the records with a \`seq\` above \`after\`, at most \`limit\`, and \`next\`, the \`after\` of the next request: the last \`seq\` listed, or \`after\` itself when none is. A change never commits behind a \`next\` already handed out, however many instances write at once, so a reader that follows \`next\` sees every change exactly once, and one that saves \`next\` only after it has handled the page skips none. With \`wait\`, a request that finds nothing past \`after\` waits up to that many seconds for the first new change (a long poll); an \`after\` past the store's latest change, which this store did not hand out, is answered at once (see \`Inventory-Seq\`). Records are the ones \`GET /inventory/{petId}/history\` lists, with the same \`seq\`. A read key (scope \`read\`) may use it. When the database cannot be read (unreachable, or locked by another process for longer than the server waits), the answer is 503 \`unavailable\` with \`Retry-After\`: ask again with the same \`after\`. Any method but GET and HEAD is 405 with \`Allow: GET, HEAD\`.`,
          parameters: feedParameters,
          responses: {
            "200": {
              description:
                "The records after `after` in `seq` order, and `next`. Empty, with `next` equal to `after`, when nothing is past `after` (once the `wait`, if any, is over, or when the server shuts down during it, or at once when `after` is past the store's latest change)",
              headers: {
                "Inventory-Seq": {
                  description:
                    "On an empty page only: the seq of the store's latest change, read after the page (so it may already be above `after`). An `after` above it was not handed out by this store (a saved cursor from another store, or from before the store was restored): a reader following it would skip every change until the seqs passed it. Such a request is answered at once, whatever its `wait`",
                  required: false,
                  schema: { type: "string", pattern: "^(0|[1-9][0-9]*)$", examples: ["1042"] },
                },
              },
              content: json(ref("ChangeFeedPage"), changeFeedExamples),
            },
            "400": errorResponse(
              400,
              `\`after\` or \`wait\` is not a whole number in its range (\`invalid_parameter\`), or \`limit\` is not a whole number from 1 to ${MAX_FEED_LIMIT} (\`invalid_limit\`)`,
              invalidFeedParameterExamples,
            ),
            "401": responses.unauthorized,
            default: {
              description:
                "Any other error: the database unreachable, or locked by another process for longer than the server waits, or the server shutting down (503 `unavailable`, with `Retry-After`: ask again with the same `after`), server error",
              headers: {
                "Retry-After": {
                  description: "With a 503: seconds to wait before asking again",
                  required: false,
                  schema: { type: "string", pattern: "^[0-9]+$", examples: ["1"] },
                },
              },
              content: json(ref("Error"), {
                ...feedUnavailableExamples,
                internalError: otherErrorExamples.internalError,
              }),
            },
          },
        },
      },
      "/inventory/{petId}": {
        get: {
          operationId: "getInventoryItem",
          tags: ["inventory"],
          summary: "Returns the stock entry of one pet, with its ETag",
          description:
            "One pet's entry, and its quantity as the `ETag` (`\"7\"`): send it back as `If-Match` to write only if nobody changed the entry in between. `Inventory-Seq` says as of which change the entry holds (read in the same snapshot): a count of the pet's shelf made at this read is true as of it. A read key (scope `read`) may use it.",
          parameters: [petIdParameter("The ID of the pet")],
          responses: {
            "200": {
              description:
                'The inventory entry; its `ETag` is the quantity as a quoted decimal (`"7"`), for `If-Match` on a later PATCH',
              headers: {
                ...etagHeader("The entry's quantity as a quoted decimal"),
                ...inventorySeqHeader(
                  "the store's latest when the entry was read (any pet's, not only this one's)",
                  { replayable: false },
                ),
              },
              content: json(ref("InventoryItem"), inventoryEntryExamples),
            },
            "400": errorResponse(400, "The pet ID is not a positive int64", invalidPetIdExamples),
            "401": responses.unauthorized,
            "404": errorResponse(404, "No pet with this ID exists", petNotFoundExamples),
            default: responses.other,
          },
        },
        patch: {
          operationId: "updateInventory",
          tags: ["inventory"],
          summary: "Sets the stock quantity of one pet",
          description:
            "Experimental: the request shape may change before the operation becomes stable.",
          "x-stability": "experimental",
          parameters: [
            petIdParameter("The ID of the pet whose stock is updated"),
            ...writeHeaderParameters,
          ],
          requestBody: {
            required: true,
            content: json(ref("InventoryUpdate"), inventoryUpdateExamples),
          },
          responses: {
            "200": {
              description:
                "The updated inventory entry (or, replayed, the one an earlier request with the same `Idempotency-Key` answered)",
              headers: {
                ...etagHeader("The entry's new quantity as a quoted decimal"),
                ...inventorySeqHeader(
                  "this write's own change (a PATCH records one even when the quantity stays)",
                  { replayable: true },
                ),
                ...replayedHeader,
              },
              content: json(ref("InventoryItem"), inventoryItemExamples),
            },
            "400": errorResponse(
              400,
              "The body is missing required fields, contains invalid values (a fraction too, however close to a whole number: `5.0` is 5, `5.000000000000001` is refused) or names a field twice, the petId is not a positive int64, or If-Match, Idempotency-Key or X-Change-Reason is malformed (`invalid_header`)",
              { ...invalidBodyExamples, ...invalidHeaderExamples, ...invalidReasonExamples },
            ),
            "401": responses.unauthorized,
            "403": errorResponse(
              403,
              "The API key is accepted but read-only (scope `read`: GET only): nothing was changed",
              forbiddenExamples,
            ),
            "404": { ...responses.notFound, headers: replayedHeader },
            "412": {
              ...errorResponse(
                412,
                "`If-Match` does not match the entry's current ETag: nothing was changed. The `ETag` header gives the current one",
                preconditionFailedExamples,
              ),
              headers: {
                ...etagHeader("The entry's current quantity as a quoted decimal"),
                ...inventorySeqHeader(
                  "the store's latest when the current entry was read (nothing was written)",
                  { replayable: true },
                ),
                ...replayedHeader,
              },
            },
            "422": errorResponse(
              422,
              "The `Idempotency-Key` was already used (by this API key, within 24 hours) for a different request: nothing was changed",
              idempotencyKeyReusedExamples,
            ),
            "503": responses.unavailable,
            default: responses.other,
          },
        },
      },
      "/inventory/{petId}/history": {
        get: {
          operationId: "getInventoryHistory",
          tags: ["inventory"],
          summary: "Returns the changes of one pet's stock, newest first",
          description:
            "Every change of the quantity (a PATCH that answered 200, a batch's `changed` change, and seeding) is kept with who made it (the API key's name), when, the request id, the `X-Change-Reason`, a batch change's `ref`, and its `seq`: its place in the change feed (`GET /inventory/changes`). Replays, 404s and 412s keep no record. Records are never edited or deleted through the API.",
          parameters: [
            petIdParameter("The ID of the pet"),
            {
              name: "limit",
              in: "query",
              required: false,
              description: "How many records, newest first: 1 to 1000",
              schema: { type: "integer", minimum: 1, maximum: 1000, default: 20 },
            },
          ],
          responses: {
            "200": {
              description: "The entry's latest changes, newest first (empty when none was kept)",
              content: json(
                { type: "array", items: ref("InventoryChange") },
                inventoryChangesExamples,
              ),
            },
            "400": errorResponse(
              400,
              "The pet ID is not a positive int64, or `limit` is not a whole number from 1 to 1000",
              {
                ...invalidPetIdExamples,
                ...invalidLimitExamples,
              },
            ),
            "401": responses.unauthorized,
            "404": errorResponse(404, "No pet with this ID exists", petNotFoundExamples),
            default: responses.other,
          },
        },
      },
      "/pets/{petId}": {
        get: {
          operationId: "getPetById",
          tags: ["pets"],
          summary: "Returns one pet",
          description: `Deprecated: stops working after ${PET_LOOKUP_SUNSET_AT.toISOString()}. Every answer but a 401 carries the Deprecation and Sunset headers.`,
          deprecated: true,
          parameters: [petIdParameter("The ID of the pet")],
          responses: {
            "200": {
              description: "The pet",
              headers: deprecationHeaders,
              content: json(ref("Pet"), petExamples),
            },
            "400": {
              ...errorResponse(400, "The pet ID is not a positive int64", invalidPetIdExamples),
              headers: deprecationHeaders,
            },
            "401": responses.unauthorized,
            "404": {
              ...errorResponse(404, "No pet with this ID exists", petNotFoundExamples),
              headers: deprecationHeaders,
            },
            default: responses.other,
          },
        },
      },
      "/store/orders": {
        get: {
          operationId: "listOrders",
          tags: ["store"],
          summary: "Returns the store's orders",
          description:
            "Every order the store holds, in ascending `id` order, in one array (no paging). The API changes no order: the bundled server's orders come with its seed data. A read key (scope `read`) may use it.",
          responses: {
            "200": {
              description: "An array of orders",
              content: json({ type: "array", items: ref("Order") }, orderListExamples),
            },
            "401": responses.unauthorized,
            default: responses.other,
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "The API key, as `Authorization: Bearer <API_KEY>`. A key has a scope: `write` may do everything, `read` only GET (anything else is 403 `forbidden`)",
        },
      },
      schemas: {
        PetStatus: petStatusSchema,
        InventoryItem: {
          ...inventoryItemSchema,
          properties: { ...inventoryItemSchema.properties, status: ref("PetStatus") },
        },
        InventoryList: { ...inventoryListSchema, items: ref("InventoryItem") },
        InventoryUpdate: inventoryUpdateSchema,
        InventoryChange: inventoryChangeSchema,
        ChangeFeedPage: {
          ...changeFeedPageSchema,
          properties: {
            ...changeFeedPageSchema.properties,
            changes: { ...changeFeedPageSchema.properties.changes, items: ref("InventoryChange") },
          },
        },
        BatchRequest: {
          ...batchRequestSchema,
          properties: {
            ...batchRequestSchema.properties,
            changes: {
              ...batchRequestSchema.properties.changes,
              items: { oneOf: [ref("BatchSet"), ref("BatchDelta"), ref("BatchCount")] },
            },
          },
        },
        BatchSet: batchSetSchema,
        BatchDelta: batchDeltaSchema,
        BatchCount: batchCountChangeSchema,
        BatchChangeResult: batchChangeResultSchema,
        BatchResponse: {
          ...batchResponseSchema,
          properties: {
            ...batchResponseSchema.properties,
            results: { ...batchResponseSchema.properties.results, items: ref("BatchChangeResult") },
          },
        },
        BatchRejection: {
          ...batchRejectionSchema,
          properties: {
            ...batchRejectionSchema.properties,
            results: {
              ...batchRejectionSchema.properties.results,
              items: ref("BatchChangeResult"),
            },
          },
        },
        Error: errorSchema,
        Pet: { ...petSchema, properties: { ...petSchema.properties, status: ref("PetStatus") } },
        Order: orderSchema,
      },
    },
  };
}
