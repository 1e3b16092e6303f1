/** A TCP port free on 127.0.0.1, for a process that takes no port 0 (PgBouncer, nginx, a guide's server). */
import { once } from "node:events";
import { createServer } from "node:net";

/** A port free right now; another process may take it before the caller binds it (retry then). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (address === null || typeof address === "string") throw new Error("no port from listen(0)");
  return address.port;
}
