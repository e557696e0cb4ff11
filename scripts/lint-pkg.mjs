// `lint:pkg` of every published package: publint and attw on the tarball a user installs.
// The tarball comes from `pnpm pack`, which applies `publishConfig` (the published `exports`
// carry no `@tool-rescue/source` condition); `attw --pack` would run `npm pack`, which does not.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dir = mkdtempSync(join(tmpdir(), "tool-rescue-pack-"))
const run = (cmd, args) => execFileSync(cmd, args, { stdio: "inherit" })
try {
  run("pnpm", ["pack", "--pack-destination", dir])
  const [tarball] = readdirSync(dir).filter((f) => f.endsWith(".tgz"))
  if (!tarball) throw new Error(`pnpm pack wrote no tarball to ${dir}`)
  run("publint", ["--strict", "--pack", "pnpm"])
  run("attw", [join(dir, tarball), "--profile", "esm-only"])
} finally {
  rmSync(dir, { recursive: true, force: true })
}
