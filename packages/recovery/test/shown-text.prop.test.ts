/**
 * A streamed turn's retry continues what the user saw: the text the abandoned attempt released
 * stays, the retry's text starts on a new line after it (a line break only when the shown text
 * does not end with one), and the retry's instruction quotes what was shown. A non-streamed
 * turn (whose result drops the abandoned attempt's text) gets neither.
 */
import { type OutputPart, recoverToolCalls } from "@tool-rescue/recovery"
import { chunked, leakedCall, prose } from "@tool-rescue/testing"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const TOOLS = ["read_file", "bash"]

interface Seen {
  /** Text parts before the retry started, and after. */
  readonly shown: string
  readonly retried: string
  readonly instruction: string | undefined
  /** The attempt was retried (a leak the generator made that the policy does not recover is not). */
  readonly retrying: boolean
}

async function run(first: readonly string[], retryText: string, streaming: boolean): Promise<Seen> {
  let instruction: string | undefined
  const parts: OutputPart<string>[] = []
  const turn = recoverToolCalls<string>({
    tools: TOOLS,
    streaming,
    attempt: async function* (round, context) {
      if (round === 0) for (const text of first) yield { type: "text", text }
      else {
        instruction = context.instruction
        if (retryText.length > 0) yield { type: "text", text: retryText }
        yield { type: "tool-call", toolName: "bash", params: "{}", raw: "call" }
      }
      yield { type: "finish", raw: `finish:${round}` }
    },
  })
  for await (const part of turn) parts.push(part)
  const start = parts.findIndex((part) => part.type === "attempt-start")
  const text = (list: OutputPart<string>[]) =>
    list.map((part) => (part.type === "text" ? part.text : "")).join("")
  return {
    shown: text(parts.slice(0, start)),
    retried: text(parts.slice(start + 1)),
    instruction,
    retrying: start >= 0,
  }
}

/** A first attempt: prose (ending a line or not), then a leaked call, in any chunking. */
const aLeak = fc
  .tuple(
    prose({ code: false, maxSentences: 3 }),
    fc.constantFrom("", " ", "\n", ".", ":\n\n"),
    leakedCall({ tools: TOOLS, closedOnly: true, maxCalls: 1 }),
  )
  .chain(([before, end, leak]) => {
    const text = `${before.text}${end}${leak.text}`
    return fc.record({ text: fc.constant(text), deltas: chunked(text) })
  })
const aRetryText = fc.oneof(
  fc.constant(""),
  prose({ code: false, maxSentences: 2 }).map((sample) => sample.text),
)

describe("a streamed retry continues what the user saw", () => {
  it("the visible text is the shown text, a line break if it does not end one, then the retry's text", async () => {
    await fc.assert(
      fc.asyncProperty(aLeak, aRetryText, async ({ deltas }, retryText) => {
        const { shown, retried, instruction, retrying } = await run(deltas, retryText, true)
        fc.pre(retrying)
        const owed = shown.length > 0 && !shown.endsWith("\n") && retryText.length > 0
        expect(retried).toBe((owed ? "\n" : "") + retryText)
        // The instruction quotes what was shown (bounded to its end), or says nothing of it.
        if (shown.trim().length === 0) expect(instruction).not.toContain("already saw")
        else expect(instruction).toContain(JSON.stringify(shown.slice(-500)).slice(1, -1))
      }),
      { numRuns: 150 },
    )
  })

  it("not streamed: no line break, no quote (the result drops the abandoned text)", async () => {
    await fc.assert(
      fc.asyncProperty(aLeak, aRetryText, async ({ deltas }, retryText) => {
        const { retried, instruction, retrying } = await run(deltas, retryText, false)
        fc.pre(retrying)
        expect(retried).toBe(retryText)
        expect(instruction).not.toContain("already saw")
      }),
      { numRuns: 50 },
    )
  })

  it("the example of the issue: the retry starts on a new line, and the model is told what was shown", async () => {
    const leak =
      "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>"
    const { shown, retried, instruction } = await run(
      ["I will run it.", leak],
      "Calling the tool properly.",
      true,
    )
    expect(shown + retried).toBe("I will run it.\nCalling the tool properly.")
    expect(instruction).toContain('The user already saw the text before that call: "I will run it.".')
  })
})
