/** The package version, for --version and the User-Agent header. */
import packageJson from "../../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;
export const USER_AGENT = `petstore-inventory/${VERSION}`;
