/**
 * An undici Agent that connects every request to 127.0.0.1:<port>, whatever its URL says (the
 * Host header still names the URL's): a run sends through it as through a proxy, by the
 * undici exchange (client/dispatcher.ts), to a stub server (test/support/http-stubs.ts) or
 * to a closed port. For a URL fixed in the CLI that a real socket on this machine cannot
 * promise: --env local's http://127.0.0.1:4010, where a demo may be listening.
 */
import { connect } from "node:net";
import { Agent } from "undici";

export function connectingTo(port: number): Agent {
  return new Agent({
    connect: (_options, callback) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        callback(null, socket);
      });
      socket.once("error", (error) => {
        callback(error, null);
      });
    },
  });
}
