// Types of the undici files undici-parts.ts loads directly: undici ships types for its index only.
declare module "undici/lib/dispatcher/env-http-proxy-agent.js" {
  import { EnvHttpProxyAgent } from "undici";
  export = EnvHttpProxyAgent;
}

declare module "undici/lib/dispatcher/pool.js" {
  import { Pool } from "undici";
  export = Pool;
}

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";
  function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
  export = request;
}
