/**
 * The environment variables petstore reads, for the manual's ENVIRONMENT section. A test
 * checks that every PETSTORE_ variable the code reads is here; the defaults come from the
 * constants the code uses.
 */
import { LOCAL_BASE_URL, TARGET_ENVS } from "../client/target.js";
import { DEFAULT_POOL_SIZE } from "../server/store-choice.js";
import { DEFAULT_LOCK_TIMEOUT_MS } from "../server/store/store.js";

/** One entry: a variable, or variables read together (the proxy ones). */
export interface EnvironmentVariable {
  names: readonly string[];
  description: string;
}

/** Variables grouped by who reads them. */
export interface EnvironmentGroup {
  heading: string;
  variables: readonly EnvironmentVariable[];
}

/** Every variable petstore reads, in the order the manual lists them. */
export const ENVIRONMENT: readonly EnvironmentGroup[] = [
  {
    heading: "The server a command talks to, and its key",
    variables: [
      {
        names: ["PETSTORE_ENV"],
        description: `The environment when --env is not given: ${TARGET_ENVS.join(", ")} (default production). local is ${LOCAL_BASE_URL}, where petstore serve listens by default.`,
      },
      {
        names: ["PETSTORE_BASE_URL"],
        description:
          "The production server's base URL, including /v1 (https://petstore.example.com/v1); --base-url wins over it.",
      },
      {
        names: ["PETSTORE_STAGING_URL"],
        description: "The staging server's base URL, with --env staging or --staging.",
      },
      {
        names: ["PETSTORE_API_KEY"],
        description:
          "The API key sent with every request. The key is never a flag, so it stays out of shell history and ps(1).",
      },
      {
        names: ["PETSTORE_STAGING_API_KEY"],
        description: "With --env staging, the key used instead of PETSTORE_API_KEY when set.",
      },
      {
        names: ["PETSTORE_API_KEY_FILE"],
        description:
          "A file holding the key (for secret managers), read when the key variables above are unset.",
      },
      {
        names: ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"],
        description:
          "The proxy for https and http URLs, and the hosts that do not use it (lower-case names too). An https URL uses HTTP_PROXY when HTTPS_PROXY is unset.",
      },
      {
        names: ["NO_COLOR"],
        description: "Any non-empty value turns colour off, as --no-color does.",
      },
      {
        names: ["FORCE_COLOR"],
        description:
          "0 or false turns colour off; any other value turns it on, even when stdout is not a terminal. It wins over NO_COLOR; --no-color wins over it.",
      },
    ],
  },
  {
    heading: "petstore serve and the db commands",
    variables: [
      {
        names: ["PETSTORE_API_KEYS"],
        description:
          "Keys petstore serve accepts, comma-separated, each a write key (named key-1, key-2, …), with or instead of --api-keys-file.",
      },
      {
        names: ["PETSTORE_DATABASE_URL"],
        description:
          "A postgres:// (or postgresql://) URL: petstore serve keeps everything in that PostgreSQL database instead of a SQLite file (not together with --db), petstore db copy copies a SQLite store into it, and petstore db backup refuses it, naming the pg_dump command to use. The password goes in PGPASSWORD or ~/.pgpass, or in the URL.",
      },
      {
        names: ["PETSTORE_DATABASE_POOL_SIZE"],
        description: `The most connections one server opens to PostgreSQL: 2 to 1000 (default ${DEFAULT_POOL_SIZE}).`,
      },
      {
        names: ["PETSTORE_LOCK_TIMEOUT_MS"],
        description: `How long a request waits for a lock another process holds on the store before the server answers 503: 1 to 30000 milliseconds (default ${DEFAULT_LOCK_TIMEOUT_MS}).`,
      },
      {
        names: ["PETSTORE_LOG_LEVEL"],
        description: "The server's log level: trace, debug, info (the default), warn or error.",
      },
    ],
  },
  {
    heading: "Node.js",
    variables: [
      {
        names: ["NODE_COMPILE_CACHE"],
        description:
          "On Node.js 22.1 and later, where compiled code is kept between runs, so later runs start faster (default: node-compile-cache in the temporary directory).",
      },
    ],
  },
];
