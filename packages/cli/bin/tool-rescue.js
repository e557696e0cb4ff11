#!/usr/bin/env node
// The `tool-rescue` command. Two reasons it is a small committed file rather than `dist/bin.js`:
// - a package manager links a command when it installs the package; in this workspace that is
//   before `dist` is built, so a command pointing into `dist` warns "Failed to create bin";
// - the built code imports Node built-ins statically, so on a Node older than `engines` it would
//   fail at import with a message about a missing export. Checking here, before that import, lets
//   an unsupported Node get one line that says what to do.
// Plain JavaScript that every Node since 12 parses: no syntax newer than the check itself.
import { createRequire } from "node:module"

const { engines } = createRequire(import.meta.url)("../package.json")
const wanted = /(\d+)(?:\.(\d+))?/.exec(engines.node)
const [major, minor] = process.versions.node.split(".").map(Number)
const [wantMajor, wantMinor] = [Number(wanted[1]), Number(wanted[2] ?? 0)]
if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
  process.stderr.write(
    `tool-rescue needs Node ${engines.node.replace(">=", "")} or newer; this is Node ${process.versions.node}. ` +
      "Install a newer Node (https://nodejs.org) and run it again.\n",
  )
  process.exit(1)
}
await import("../dist/bin.js")
