/** The files petstore reads and writes by default, for the manual's FILES section. */
import { DEFAULT_DB } from "../server/store-choice.js";

/** A file or a pattern of files, and what it is. */
export interface DocumentedFile {
  path: string;
  description: string;
}

/** In the order the manual lists them. */
export const FILES: readonly DocumentedFile[] = [
  {
    path: DEFAULT_DB,
    description: `The SQLite store of petstore serve when it runs without --db and without PETSTORE_DATABASE_URL, in the directory it starts in; also the file petstore db backup copies without --db. Its ${DEFAULT_DB}-wal and ${DEFAULT_DB}-shm files belong to it.`,
  },
  {
    path: "/etc/petstore/keys",
    description:
      'The keys file of petstore serve --api-keys-file in the systemd unit: one key a line, "<name> <scope> sha256:<hex>" (petstore keys create prints the line, petstore keys check checks the file). SIGHUP makes the server read it again.',
  },
  {
    path: "/var/lib/petstore/petstore.db",
    description: "The SQLite store of the systemd unit (--db).",
  },
  {
    path: "$(npm root -g)/petstore-inventory/deploy/petstore.service",
    description: "The systemd unit that runs petstore serve, shipped in the package.",
  },
];
