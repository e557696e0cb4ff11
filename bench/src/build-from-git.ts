/**
 * Builds a package's sources as they were at an older commit, for a suite that runs them beside
 * today's: `packages/<name>/src` at that commit, from git (`git archive`), bundled with esbuild as
 * the packages' own build does (ESM, es2022, bare imports left as imports) into
 * `bench/node_modules/.cache/<name>-<commit>/` (ignored by git: nothing of it is kept in the tree).
 * From there its bare imports resolve to the bench's own dependencies.
 *
 * With `workspace` (names of other packages of the repository), those are bundled too, from the
 * same commit (the whole of an older proxy: its `recovery` and `wire` as they were), and every
 * other bare import resolves to the dependency today's packages have installed (a link per
 * dependency in the build's own `node_modules`).
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { build, type Plugin } from "esbuild"

export interface BuildFromGitOptions {
  /** The entry file under `src/`. @defaultValue "index.ts" */
  readonly entry?: string
  /** Workspace packages bundled from the same commit (their imports by package name). */
  readonly workspace?: readonly string[]
}

/** The bundle of `packages/<name>/src/<entry>` at `commit`: its file URL. */
export async function buildFromGit(
  name: string,
  commit: string,
  { entry = "index.ts", workspace = [] }: BuildFromGitOptions = {},
): Promise<string> {
  const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim()
  const dir = fileURLToPath(new URL(`../node_modules/.cache/${name}-${commit}/`, import.meta.url))
  rmSync(dir, { recursive: true, force: true })
  const names = [name, ...workspace]
  const paths = names.flatMap((pkg) => [`packages/${pkg}/src`, `packages/${pkg}/package.json`])
  const archive = execFileSync("git", ["-C", root, "archive", commit, ...paths], {
    maxBuffer: 256 * 1024 * 1024,
  })
  mkdirSync(dir, { recursive: true })
  execFileSync("tar", ["-x", "-C", dir], { input: archive })
  if (workspace.length > 0) linkDependencies(root, dir, names)
  const outfile = join(dir, `${name}.js`)
  await build({
    entryPoints: [join(dir, `packages/${name}/src/${entry}`)],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    logLevel: "warning",
    ...(workspace.length === 0
      ? { packages: "external" as const }
      : { conditions: ["@tool-rescue/source"], plugins: [externalUnless(workspace)] }),
    outfile,
  })
  return pathToFileURL(outfile).href
}

/**
 * `dir/node_modules`: each archived package under its name, and each of their other
 * dependencies linked to the copy today's tree installed for it.
 */
function linkDependencies(root: string, dir: string, names: readonly string[]): void {
  const link = (target: string, at: string) => {
    if (existsSync(at)) return
    mkdirSync(dirname(at), { recursive: true })
    symlinkSync(target, at)
  }
  for (const pkg of names) {
    link(join(dir, "packages", pkg), join(dir, "node_modules/@tool-rescue", pkg))
    const manifest = JSON.parse(readFileSync(join(dir, "packages", pkg, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>
    }
    for (const dep of Object.keys(manifest.dependencies ?? {}))
      if (!dep.startsWith("@tool-rescue/"))
        link(realpathSync(join(root, "packages", pkg, "node_modules", dep)), join(dir, "node_modules", dep))
  }
}

/** Every bare import but those of `workspace` stays an import. */
function externalUnless(workspace: readonly string[]): Plugin {
  const bundled = new Set(workspace.map((pkg) => `@tool-rescue/${pkg}`))
  return {
    name: "external-unless-workspace",
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, ({ path }) => {
        const pkg = path.startsWith("@") ? path.split("/", 2).join("/") : path.split("/", 1)[0]!
        return bundled.has(pkg) ? undefined : { path, external: true }
      })
    },
  }
}
