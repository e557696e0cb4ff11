/**
 * End to end through the real detector: for every format of FORMATS.md and every leak variant
 * the testing kit writes (labelled with what a correct detector reports), embedded in hard prose
 * and cut into deltas anywhere, the consumer sees the prose and nothing of the leak (whitespace
 * between calls aside), and the turn retries exactly when the labels say the leak is
 * recoverable.
 *
 * run-turn.prop.test.ts proves that runTurn shows exactly what the detector releases; this file
 * holds the detector to the labels, so that "no markup text ever reaches the consumer" is proven
 * for the whole pipeline and not only relative to the detector.
 */

import { type OutputPart, recoverToolCalls } from "@tool-rescue/recovery"
import { chunked, leakedCall, prose } from "@tool-rescue/testing"
import fc from "fast-check"
import { expect, test } from "vitest"

const TOOLS = ["read_file", "bash"]

const nonWhitespace = (text: string) => text.replace(/\s+/g, "")

interface Case {
  readonly before: string
  readonly leak: string
  readonly after: string
  readonly recoverable: boolean
}

// Leaks that leave their envelope closed sit between two prose parts; leaks cut off by the end
// of the response end it; start-anchored leaks (bare JSON, pythonic lists) form the whole
// response, the only place they are evidence.
const closedLeak = leakedCall({ tools: TOOLS, unknownTools: true, closedOnly: true, anchored: "exclude" })
const endingLeak = leakedCall({ tools: TOOLS, unknownTools: true, anchored: "exclude" })
const anchoredLeak = leakedCall({ tools: TOOLS, anchored: "only" })
const hardProse = prose({ strays: false }).map((s) => s.text)

const aCase: fc.Arbitrary<Case> = fc.oneof(
  fc.record({ before: hardProse, leak: closedLeak, after: hardProse }).map(({ before, leak, after }) => ({
    before: `${before}\n\n`,
    leak: leak.text,
    after: `\n\n${after}`,
    recoverable: leak.labels.recoverable,
  })),
  fc.record({ before: hardProse, leak: endingLeak }).map(({ before, leak }) => ({
    before: `${before}\n\n`,
    leak: leak.text,
    after: "",
    recoverable: leak.labels.recoverable,
  })),
  anchoredLeak.map((leak) => ({
    before: "",
    leak: leak.text,
    after: "",
    recoverable: leak.labels.recoverable,
  })),
)

async function runCase(deltas: readonly string[]): Promise<{ shown: string; attempts: number }> {
  let attempts = 0
  const parts: OutputPart<string>[] = []
  let first = true
  for await (const part of recoverToolCalls<string>({
    tools: TOOLS,
    attempt: async function* (round) {
      attempts++
      if (round > 0) {
        yield { type: "text", text: "Calling it properly now." }
      } else {
        for (const text of deltas) yield { type: "text", text }
      }
      yield { type: "finish", raw: `finish:${round}` }
    },
  })) {
    if (part.type === "attempt-start") first = false
    else if (first) parts.push(part)
  }
  return { shown: parts.map((p) => (p.type === "text" ? p.text : "")).join(""), attempts }
}

test("no character of a leak in any format reaches the consumer; retries follow the labels", async () => {
  await fc.assert(
    fc.asyncProperty(
      aCase.chain((c) => fc.record({ c: fc.constant(c), deltas: chunked(c.before + c.leak + c.after) })),
      async ({ c, deltas }) => {
        const { shown, attempts } = await runCase(deltas)
        expect(nonWhitespace(shown)).toBe(nonWhitespace(c.before + c.after))
        expect(attempts).toBe(c.recoverable ? 2 : 1)
      },
    ),
  )
})
