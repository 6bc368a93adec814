/** The package's version and where bugs go, from package.json (bundled into dist/ at build time). */
import packageJson from "../../package.json" with { type: "json" };

export const VERSION: string = packageJson.version;

/**
 * Where a bug is reported: package.json's `bugs.url` when it has one, else the README's
 * "Report a bug" section (the README ships in the package).
 */
export const BUGS_URL: string = (packageJson as { bugs?: { url?: unknown } }).bugs?.url?.toString() ?? 'the README\'s "Report a bug"';
