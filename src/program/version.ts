/** The package version, for --version and the User-Agent header. */
import { VERSION } from "../api/version.js";

export { VERSION };
export const USER_AGENT = `petstore-inventory/${VERSION}`;
