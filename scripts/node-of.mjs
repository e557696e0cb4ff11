// Another Node for the checks that run on more than one: npm's `node@<version>` package, through
// npx (the registry is all CI has; npx caches it after the first run).
import { execFileSync } from "node:child_process"

/** The path of Node `version`'s executable (`"22.12.0"`, or a range npm resolves, `"20"`). */
export function nodeOf(version) {
  const npx = process.platform === "win32" ? "npx.cmd" : "npx"
  return execFileSync(npx, ["--yes", `node@${version}`, "-p", "process.execPath"])
    .toString()
    .trim()
}
