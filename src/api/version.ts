/** The package version: the CLI's --version and User-Agent, the server's build-info metric. */
import packageJson from "../../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;
