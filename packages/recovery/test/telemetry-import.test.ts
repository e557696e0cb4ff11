import { expect, test } from "vitest"
import { runNode } from "./support/run-node.ts"

// A fresh Node process that records every `@opentelemetry/*` module it resolves: importing
// recovery (either entry) and judging responses (what the CLI's `scan` does) must not load the
// API; the first span or count must.
const script = `
import { registerHooks } from "node:module"
const resolved = []
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith("@opentelemetry/")) resolved.push(specifier)
    return next(specifier, context)
  },
})
await import("@tool-rescue/recovery")
const kit = await import("@tool-rescue/recovery/adapter")
const judge = kit.createResponseJudge({ tools: ["read_file"] })
judge.push({ type: "text", text: "<tool_call>\\n<function=read_file>\\n</function>\\n</tool_call>" })
const judged = judge.end().markup.length
const afterJudge = [...resolved]
const turnTelemetry = await import(new URL("./src/turn-telemetry.ts", import.meta.url).href)
const telemetry = turnTelemetry.createTurnTelemetry()
telemetry.record({ type: "recovery-skipped", reason: "no tools" })
const beforeCount = [...resolved]
telemetry.record({ type: "recovery-started", round: 1, markup: [], announced: "read_file" })
telemetry.end()
await turnTelemetry.loadTelemetryApi()
console.log(JSON.stringify({ judged, afterJudge, beforeCount, afterCount: resolved }))
`

test("@opentelemetry/api is loaded by the first span or count, not by importing recovery or judging", async () => {
  const run = await runNode(script)
  expect(run.stderr).toBe("")
  expect(run.code).toBe(0)
  expect(JSON.parse(run.stdout)).toEqual({
    judged: 1,
    afterJudge: [],
    // An event that makes no span and no count (nothing was started) loads nothing either.
    beforeCount: [],
    afterCount: ["@opentelemetry/api"],
  })
})
