/**
 * A stream keeps the detector's hold-back and its withheld markup, not the response: the
 * attempt's whole text is kept only when something reads it (`persistFailed`, announced calls).
 * Whether it is kept changes nothing a consumer sees: the same parts, the same events with the
 * same markup text, under any chunking, with reasoning parts too.
 */

import {
  type FailedResponse,
  type OutputPart,
  type RecoveryEvent,
  recoverToolCalls,
} from "@tool-rescue/recovery"
import { chunked, response } from "@tool-rescue/testing"
import fc from "fast-check"
import { expect, test } from "vitest"
import { createAttemptScanner } from "../src/attempt-scanner.ts"

const TOOLS = ["read_file", "bash"]

interface Seen {
  readonly parts: OutputPart<string>[]
  readonly events: RecoveryEvent[]
  readonly failed: FailedResponse[]
}

async function run(deltas: readonly { reasoning: boolean; text: string }[], persist: boolean): Promise<Seen> {
  const seen: Seen = { parts: [], events: [], failed: [] }
  const turn = recoverToolCalls<string>({
    tools: TOOLS,
    options: {
      onEvent: (event) => seen.events.push(event),
      ...(persist ? { persistFailed: (failed: FailedResponse) => void seen.failed.push(failed) } : {}),
    },
    attempt: async function* (round) {
      if (round > 0) yield { type: "text", text: "Calling it properly now." }
      else for (const { reasoning, text } of deltas) yield { type: reasoning ? "reasoning" : "text", text }
      yield { type: "finish", raw: `finish:${round}` }
    },
  })
  try {
    for await (const part of turn) seen.parts.push(part)
  } catch (error) {
    seen.events.push({ type: "recovery-failed", round: -1, error: (error as { code?: string }).code })
  }
  return seen
}

const aStream = response({ tools: TOOLS, unknownTools: true }).chain((sample) =>
  fc.record({
    text: fc.constant(sample.text),
    deltas: chunked(sample.text),
    reasoningFirst: fc.nat({ max: 3 }),
  }),
)

test("keeping the attempt's text or not: the same parts and events, with the same markup text", async () => {
  await fc.assert(
    fc.asyncProperty(aStream, async ({ text, deltas, reasoningFirst }) => {
      // The first few deltas as reasoning: markup text is read from both channels.
      const parts = deltas.map((delta, i) => ({ reasoning: i < reasoningFirst, text: delta }))
      const bounded = await run(parts, false)
      const kept = await run(parts, true)
      expect(bounded.parts).toEqual(kept.parts)
      expect(bounded.events).toEqual(kept.events)
      for (const failed of kept.failed) {
        expect(failed.reasoning + failed.text).toBe(text)
      }
    }),
    { numRuns: 150 },
  )
})

test("a long clean stream keeps no text; a leak keeps its withheld markup only", () => {
  const scanner = createAttemptScanner<string>({
    tools: TOOLS,
    formats: undefined,
    maxHoldChars: undefined,
    onUnknownTool() {},
  })
  const out: OutputPart<string>[] = []
  const sentence = "The parser keeps a small state machine per stream and releases text as soon as it can. "
  for (let i = 0; i < 20_000; i++)
    scanner.push({ type: "text", text: sentence.slice((i * 4) % 80, ((i * 4) % 80) + 4) }, out)
  expect(scanner.retained()).toBe(0)
  const leak =
    "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"
  for (let i = 0; i < leak.length; i += 3) scanner.push({ type: "text", text: leak.slice(i, i + 3) }, out)
  const report = scanner.end(out)
  expect(report.markup.map((found) => found.text)).toEqual([leak])
  expect(scanner.retained()).toBe(leak.length)
  expect(report.text).toBe("")

  const keeping = createAttemptScanner<string>({
    tools: TOOLS,
    formats: undefined,
    maxHoldChars: undefined,
    onUnknownTool() {},
    keepText: true,
  })
  keeping.push({ type: "text", text: `Reading it.\n${leak}` }, out)
  expect(keeping.end(out).text).toBe(`Reading it.\n${leak}`)
})
