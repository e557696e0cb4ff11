/**
 * Builds a package's sources as they were at an older commit, for a suite that runs them beside
 * today's: `packages/<name>/src` at that commit, from git (`git archive`), bundled with esbuild as
 * the packages' own build does (ESM, es2022, bare imports left as imports) into
 * `bench/node_modules/.cache/<name>-<commit>/` (ignored by git: nothing of it is kept in the tree).
 * From there its bare imports resolve to the bench's own dependencies.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { build } from "esbuild"

/** The bundle of `packages/<name>/src/index.ts` at `commit`: its file URL. */
export async function buildFromGit(name: string, commit: string): Promise<string> {
  const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim()
  const dir = fileURLToPath(new URL(`../node_modules/.cache/${name}-${commit}/`, import.meta.url))
  rmSync(dir, { recursive: true, force: true })
  const archive = execFileSync("git", ["-C", root, "archive", commit, `packages/${name}/src`])
  mkdirSync(dir, { recursive: true })
  execFileSync("tar", ["-x", "-C", dir], { input: archive })
  const outfile = join(dir, `${name}.js`)
  await build({
    entryPoints: [join(dir, `packages/${name}/src/index.ts`)],
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
