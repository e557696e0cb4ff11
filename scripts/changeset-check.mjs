// Changesets that cannot be released are caught here, not at release time:
// `changeset status` parses every changeset, and `changeset version` runs in a scratch copy of the
// committed tree (it rewrites package.json files and changelogs, which must not touch the work tree).
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const changeset = join(root, "node_modules/@changesets/cli/bin.js")
const run = (args, cwd) => execFileSync(process.execPath, [changeset, ...args], { cwd, stdio: "inherit" })

run(["status"], root)

const scratch = mkdtempSync(join(tmpdir(), "tool-rescue-changeset-"))
try {
  // The tracked files as they are now (committed or not), without node_modules or build output.
  execFileSync(
    "sh",
    [
      "-c",
      `git -C "${root}" ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "${scratch}"`,
    ],
    {
      cwd: root,
    },
  )
  symlinkSync(join(root, "node_modules"), join(scratch, "node_modules"))
  execFileSync("git", ["init", "-q"], { cwd: scratch })
  execFileSync("git", ["-c", "user.name=ci", "-c", "user.email=ci@localhost", "add", "-A"], { cwd: scratch })
  execFileSync("git", ["-c", "user.name=ci", "-c", "user.email=ci@localhost", "commit", "-qm", "scratch"], {
    cwd: scratch,
  })
  run(["version"], scratch)
  console.log("ok   changeset status and changeset version (in a scratch copy)")
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
