/**
 * Harmony output that drifts from its header, from real leaks: glitch tokens between a stripped
 * header's recipient and its `json` (livekit/agents-js#1632: `to=functions.saveAnswer  天天中彩票能json`),
 * and a commentary message whose recipient was lost, its body a call's JSON arguments
 * (NVIDIA/TensorRT-LLM#9256). Each generated value carries its labels: the call (its tool, or none
 * for a lost recipient) and the text shown, whole or cut anywhere. A commentary preamble in prose
 * is no call.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { scan } from "../src/index.ts"
import { cuts } from "./arbitraries.ts"
import { feed, splitAt } from "./helpers.ts"

const TOOLS = ["saveAnswer", "grep"]

interface Labelled {
  readonly text: string
  /** `null`: no call; `undefined`: a call naming no tool. */
  readonly call: string | undefined | null
  readonly visible: string
}

const args = fc.constantFrom('{"q": 1}', '{\n  "path": "/",\n  "x": [1, "}"]\n}', "{}")
const before = fc.constantFrom("", "Okay. ", "Sure.\n")
const after = fc.constantFrom("", " Done.", "\nNext question?")

/** `to=functions.NAME`, glitch tokens or none, `json`, then the arguments (special tokens stripped). */
const glitched: fc.Arbitrary<Labelled> = fc
  .record({
    before,
    tool: fc.constantFrom(...TOOLS),
    glitch: fc.constantFrom("", "天天中彩票能", "цҳ", "\u0120\u0120"),
    gap: fc.constantFrom(" ", "  ", ""),
    args,
    after,
  })
  .map(({ before, tool, glitch, gap, args, after }) => ({
    text: `${before}to=functions.${tool}${gap}${glitch}json\n${args}${after}`,
    call: tool,
    visible: `${before}${after}`,
  }))

/** `<|channel|>commentary<|message|>` then JSON (a call, its recipient lost) or prose (a preamble). */
const commentary: fc.Arbitrary<Labelled> = fc
  .record({ before, start: fc.boolean(), json: fc.boolean(), args, after })
  .map(({ before, start, json, args, after }) => {
    const header = `${start ? "<|start|>assistant" : ""}<|channel|>commentary<|message|>`
    const text = `${before}${header}${json ? args : "I will look it up."}<|end|>${after}`
    return json
      ? { text, call: undefined, visible: `${before}${after}` }
      : { text, call: null, visible: text }
  })

const drift = fc.oneof(glitched, commentary)

describe("Harmony drifting from its header", () => {
  test.prop([drift], { numRuns: 300 })("is the call it carries, or prose", (v) => {
    const whole = scan(v.text, { tools: TOOLS })
    expect(whole.markup.map((m) => [m.format, m.toolName])).toEqual(
      v.call === null ? [] : [["harmony", v.call]],
    )
    expect(whole.text).toBe(v.visible)
  })

  test.prop([drift.chain((v) => fc.tuple(fc.constant(v), cuts(v.text.length)))], { numRuns: 200 })(
    "the same however the stream is cut",
    ([v, points]) => {
      expect(feed(splitAt(v.text, points), { tools: TOOLS })).toMatchObject(scan(v.text, { tools: TOOLS }))
    },
  )
})
