import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect, test } from "vitest"

// Every process that loads the detector keeps its default formats' compiled tables (tries of every
// opening and body literal, prose and body scanners) for its lifetime, and the CLI's constant-memory
// scan runs under a small heap cap beside them. A fresh Node process (with `--expose-gc`, so the heap
// is measured after full collections) imports the detector, makes one detector (which compiles the
// tables) and reports what that retained: on the V8 heap, and in array buffers (the scanners' 16 KB
// pair tables live outside it). When spelling families multiplied the literals (536 to 3,626) the
// tables took 6.5 MB of heap and 3.1 MB of buffers: most of the heap the trie nodes' arrays, each
// with room left for 16 more kids (V8 grows an array by half plus 16), and the buffers 150 body
// scanners for 57 distinct literal sets. Trimmed and shared: about 3.0 MB and 1.6 MB.
const script = `
const memory = () => {
  globalThis.gc()
  globalThis.gc()
  return process.memoryUsage()
}
const { createDetector } = await import("@tool-rescue/detector")
const before = memory()
createDetector({ tools: ["read_file", "write_file", "bash"] }).push("warm up ")
const after = memory()
console.log(JSON.stringify({
  heap: after.heapUsed - before.heapUsed,
  buffers: after.arrayBuffers - before.arrayBuffers,
}))
`

test("the default formats' compiled tables retain at most 4.5 MB of heap and 2.5 MB of buffers", () => {
  const stdout = execFileSync(
    process.execPath,
    ["--expose-gc", "--conditions=@tool-rescue/source", "--input-type=module", "--eval", script],
    { cwd: fileURLToPath(new URL("..", import.meta.url)), encoding: "utf8" },
  )
  const { heap, buffers } = JSON.parse(stdout) as { heap: number; buffers: number }
  const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`
  expect(heap, `${mb(heap)} of heap`).toBeLessThanOrEqual(4.5e6)
  expect(buffers, `${mb(buffers)} of buffers`).toBeLessThanOrEqual(2.5e6)
}, 60_000)
