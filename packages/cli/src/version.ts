import { readFileSync } from "node:fs"

/**
 * The package version, read from `package.json` (one level above both `src/` and `dist/`).
 *
 * @example
 * ```ts
 * import { cliVersion } from "@tool-rescue/cli"
 *
 * console.log(cliVersion()) // "0.1.0"
 * ```
 */
export function cliVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
  const version = (pkg as { version?: unknown }).version
  return typeof version === "string" ? version : "unknown"
}
