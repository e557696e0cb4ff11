import { fc, it } from "@fast-check/vitest"
import { scan } from "@tool-rescue/detector"
import { response } from "@tool-rescue/testing"
import { describe, expect } from "vitest"
import { startHarness, streamedChat } from "./support/harness.ts"

const TOOLS = ["read_file", "bash"]

/** The visible text of a chat SSE body. */
function visible(sse: string): string {
  return sse
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map(
      (line) => (JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> }).choices,
    )
    .map((choices) => choices?.[0]?.delta?.content ?? "")
    .join("")
}

describe("split invariance through the proxy", () => {
  it.prop(
    [
      response({ tools: TOOLS, unknownTools: true, maxParts: 3 }),
      fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }),
    ],
    { numRuns: Number(process.env.FC_NUM_RUNS ?? 40) },
  )(
    "any chunking of the upstream stream gives the detector's visible text and the same decision",
    async (sample, chunkSize) => {
      const harness = await startHarness([{ content: sample.text, chunkSize }, { content: "Done." }])
      try {
        const sse = await (
          await fetch(
            `${harness.proxy.url}/chat/completions`,
            streamedChat(
              TOOLS.map((name) => ({ type: "function", function: { name, parameters: { type: "object" } } })),
            ),
          )
        ).text()
        // The oracle: the detector's one-shot scan of the whole text (no chunking at all).
        const shown = scan(sample.text, { tools: TOOLS }).text
        const recovered = sample.labels.recoverable
        // A retry's text starts on a new line after shown text that does not end one.
        const owed = shown.length > 0 && !shown.endsWith("\n") ? "\n" : ""
        expect(visible(sse)).toBe(recovered ? `${shown}${owed}Done.` : shown)
        expect(harness.turns()).toBe(recovered ? 2 : 1)
      } finally {
        await harness.close()
      }
    },
    // Dozens of runs, each a proxy and an upstream: well within this on a loaded machine.
    120_000,
  )
})
