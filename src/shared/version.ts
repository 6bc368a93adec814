/** The package's version, from package.json (bundled into dist/ at build time). */
import packageJson from "../../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;
