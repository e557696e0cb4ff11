/**
 * Builds the class-based turn of commit 6efbb86 (the last before `runTurn` became an async
 * generator again) for the `proxy-turn` suite: `packages/recovery/src` at that commit, from git
 * (`git archive`), bundled with esbuild as the package's own build does (ESM, es2022, bare imports
 * left as imports) into `bench/node_modules/.cache/` (ignored by git: nothing of it is kept in the
 * tree; from there its bare imports resolve to the bench's own `@tool-rescue/detector`).
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { build } from "esbuild"

export const CLASS_TURN_COMMIT = "6efbb86"

/** The bundle's file URL. */
export async function buildClassTurn(): Promise<string> {
  const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim()
  const dir = fileURLToPath(
    new URL(`../../node_modules/.cache/recovery-${CLASS_TURN_COMMIT}/`, import.meta.url),
  )
  rmSync(dir, { recursive: true, force: true })
  const archive = execFileSync("git", ["-C", root, "archive", CLASS_TURN_COMMIT, "packages/recovery/src"])
  mkdirSync(dir, { recursive: true })
  execFileSync("tar", ["-x", "-C", dir], { input: archive })
  const outfile = join(dir, "recovery.js")
  await build({
    entryPoints: [join(dir, "packages/recovery/src/index.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    packages: "external",
    outfile,
    logLevel: "warning",
  })
  return pathToFileURL(outfile).href
}
