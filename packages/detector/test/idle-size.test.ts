import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect, test } from "vitest"

// The proxy keeps one detector per open stream: an idle one must stay small. A fresh Node process
// (with `--expose-gc`, so the heap can be measured after full collections) keeps 10,000 detectors
// alive, each after one prose delta, and reports the heap they retain per detector. What only
// some streams need (the run memo, far searches, markup and reasoning lists, a call's lexical
// state) is made on first need; the tool list is an array, not a set; the methods are shared, not
// closures per detector. 1,383 bytes before that, about 550 after.
const script = `
const { createDetector } = await import("@tool-rescue/detector")
const tools = ["read_file", "write_file", "bash"]
createDetector({ tools }).push("warm up ")
globalThis.gc()
globalThis.gc()
const before = process.memoryUsage().heapUsed
const live = new Array(10000)
for (let i = 0; i < live.length; i++) {
  const detector = createDetector({ tools })
  detector.push("Sure, I will ")
  live[i] = detector
}
globalThis.gc()
globalThis.gc()
const perDetector = (process.memoryUsage().heapUsed - before) / live.length
console.log(JSON.stringify({ perDetector, live: live.length }))
`

test("an idle detector retains at most 800 bytes (10,000 live, after one delta each)", () => {
  const stdout = execFileSync(
    process.execPath,
    ["--expose-gc", "--conditions=@tool-rescue/source", "--input-type=module", "--eval", script],
    { cwd: fileURLToPath(new URL("..", import.meta.url)), encoding: "utf8" },
  )
  const { perDetector } = JSON.parse(stdout) as { perDetector: number }
  expect(perDetector, `${perDetector} bytes per idle detector`).toBeLessThanOrEqual(800)
}, 60_000)
