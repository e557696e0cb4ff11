#!/usr/bin/env node
// The `tool-rescue` executable: everything lives in `main` (testable with injected streams).
import { processIo } from "./io.ts"
import { main } from "./main.ts"

// `tool-rescue scan big.jsonl | head` closes our stdout early: that is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  throw error
})

process.exitCode = await main(process.argv.slice(2), processIo())
