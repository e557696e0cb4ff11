import { expect, test } from "vitest"
import { runNode } from "./support/run-node.ts"

// A fresh Node process runs clean turns one after the other and measures what young-generation
// GCs move to the old generation: nothing of a finished turn may survive one (a turn's objects are
// garbage when it ends). With an object literal with accessors as the attempt's report (a
// `get text()`), every turn's whole graph outlived the young GCs until the next full one, each
// young GC copying it: 5 KB a turn promoted, GC pauses of 5–20 ms in the proxy on a loaded machine.
//
// With a signal (as every adapter passes one): with the turn object itself as the signal's
// listener, or a closure over it, every turn's graph outlived the young GCs too (3 KB a turn).
const script = (input: string) => `
import { getHeapSpaceStatistics } from "node:v8"
const { recoverToolCalls } = await import("@tool-rescue/recovery")
const oldSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "old_space").space_used_size
async function* parts() {
  yield { type: "text", text: "The parser keeps a small " }
  yield { type: "text", text: "state machine per stream." }
  yield { type: "finish", raw: "stop" }
}
async function turns(count) {
  for (let i = 0; i < count; i++) for await (const _ of recoverToolCalls({ ${input} }));
}
await turns(2000) // warm: code and caches made once
const grown = []
for (let batch = 0; batch < 5; batch++) {
  globalThis.gc()
  const before = oldSpace()
  await turns(2000)
  globalThis.gc({ type: "minor" })
  globalThis.gc({ type: "minor" })
  grown.push(oldSpace() - before)
}
grown.sort((a, b) => a - b)
console.log(JSON.stringify({ perTurn: grown[2] / 2000 }))
`

test.each([
  ["without a signal", 'tools: ["read_file"], attempt: async () => parts()'],
  [
    "with a signal and an event listener",
    'tools: ["read_file"], signal: new AbortController().signal, options: { onEvent() {} }, attempt: async () => parts()',
  ],
  [
    "with a signal and settlesOnAbort (no race per part)",
    'tools: ["read_file"], signal: new AbortController().signal, settlesOnAbort: true, attempt: async () => parts()',
  ],
])(
  "a finished turn %s leaves nothing for the young-generation GC to keep (median of 5 batches of 2000 turns)",
  async (_name, input) => {
    const run = await runNode(script(input), ["--expose-gc"])
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    const { perTurn } = JSON.parse(run.stdout) as { perTurn: number }
    // Bytes of old generation gained per turn: ~5 now, ~5,000 when every turn's graph outlived the young GCs.
    expect(perTurn, `${perTurn} bytes a turn`).toBeLessThan(500)
  },
  60_000,
)
