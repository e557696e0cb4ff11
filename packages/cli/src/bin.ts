#!/usr/bin/env node
// The `tool-rescue` executable: everything lives in `main` (testable with injected streams),
// loaded only once this Node is one the CLI supports: on an older one, a module it imports may
// fail at load with an error that names neither the CLI nor the Node it needs.
import { unsupportedNode } from "./node-support.ts"

const unsupported = unsupportedNode(process.versions.node)
if (unsupported !== undefined) {
  process.stderr.write(`${unsupported}\n`)
  process.exitCode = 1
} else {
  const [{ processIo }, { main }] = await Promise.all([import("./io.ts"), import("./main.ts")])
  // `tool-rescue scan big.jsonl | head` closes our stdout early: that is not an error.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0)
    throw error
  })
  process.exitCode = await main(process.argv.slice(2), processIo())
}
