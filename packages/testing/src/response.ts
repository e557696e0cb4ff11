/**
 * `response()`: a whole model response composed from the other arbitraries, labelled with every
 * call a detector must report and the tools recovery must act on.
 */
import type { FormatId } from "@tool-rescue/detector"
import fc from "fast-check"
import { fencedExample, inlineCodeExample } from "./code-examples.ts"
import type { CallLabel, Labels, LeakLabels, Sample } from "./labels.ts"
import { labelsOf } from "./labels.ts"
import { formatSpecs } from "./leak-formats.ts"
import { defaultFormats, leakedCall } from "./leaked-call.ts"
import { prose } from "./prose.ts"
import { thinkingBlock } from "./thinking-block.ts"

/**
 * Options of {@link response}.
 *
 * @example
 * ```ts
 * import { response } from "@tool-rescue/testing"
 *
 * const withHallucinations = response({ tools: ["read_file"], unknownTools: true, maxParts: 2 })
 * ```
 */
export interface ResponseOptions {
  /** The tools offered this turn. */
  readonly tools: readonly string[]
  /** The formats leaks are written in. @defaultValue every format but `cline-xml` */
  readonly format?: FormatId | readonly FormatId[]
  /** Also leak calls to tools that are not offered (reported, not recoverable). @defaultValue false */
  readonly unknownTools?: boolean
  /** At most this many parts between the opening and the closing part. @defaultValue 4 */
  readonly maxParts?: number
}

/** A part of a response: visible text, or a leak (withheld). */
interface Part {
  readonly text: string
  readonly calls: readonly CallLabel[]
  /** Visible non-whitespace text (prose or a code example), as opposed to a leak. */
  readonly visible: boolean
}

/**
 * Labels of a response.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { response } from "@tool-rescue/testing"
 *
 * const [value] = fc.sample(response({ tools: ["bash"] }), 1)
 * value?.labels.formats // the format of each call, in order
 * ```
 */
export interface ResponseLabels extends Labels {
  /** The formats of the calls, in order. */
  readonly formats: readonly FormatId[]
  /** The response holds a reasoning block. */
  readonly reasoning: boolean
}

const visibleText = (sample: Sample): Part => ({ text: sample.text, calls: [], visible: true })
const leakPart = (sample: Sample): Part => ({ text: sample.text, calls: sample.labels.calls, visible: false })

/**
 * The reasoning tags chat templates write the opener of into the prompt (the output then holds
 * the closer alone): `<think>` (Qwen3-Thinking-2507, MiniMax-M2, DeepSeek-R1), Magistral's
 * `[THINK]`, Seed-OSS's `<seed:think>`. `glued`: the answer may follow the closer on its line (a
 * special token); `</think>`, a tag prose names, ends its line.
 */
const TEMPLATE_REASONING = [
  { open: "<think>\n", close: "\n</think>", glued: false },
  { open: "[THINK]", close: "[/THINK]", glued: true },
  { open: "<seed:think>", close: "</seed:think>", glued: true },
] as const

/**
 * Markup-free reasoning before an answer: a whole block, or its closer alone (the chat template
 * opened the block in the prompt), then a blank line, or nothing after a special token.
 */
export const reasoningBefore: fc.Arbitrary<string> = fc
  .record({
    thought: prose({ code: false, maxSentences: 2 }).map((sample) => sample.text),
    tags: fc.constantFrom(...TEMPLATE_REASONING),
    opened: fc.boolean(),
    gap: fc.constantFrom("\n\n", ""),
  })
  .map(
    ({ thought, tags, opened, gap }) =>
      `${opened ? tags.open : ""}${thought}${tags.close}${tags.glued ? gap : "\n\n"}`,
  )

/**
 * Markup-free reasoning whose lone `</think>` a JSON call list is glued to (`…</think>[{"name": …}]`):
 * the chat template opened the block; the answer starts on the closer's line.
 */
export const reasoningGluedBefore: fc.Arbitrary<string> = fc
  .record({
    thought: prose({ code: false, maxSentences: 2 }).map((sample) => sample.text),
    gap: fc.constantFrom("", " ", "\n"),
  })
  .map(({ thought, gap }) => `${thought}${gap}</think>`)

/**
 * A model response: an optional reasoning block (maybe holding a call), then prose, fenced and
 * inline code examples and leaked calls in any order, and an ending that may be a leak cut off
 * by the end of the stream, an unclosed fenced example, or prose with stray backticks. Parts are
 * separated by blank lines. The composition keeps the labels true: a start-anchored leak (bare
 * JSON, pythonic list) only ever forms the whole answer, maybe after a reasoning block — a whole
 * `<think>…</think>`, or only its closer when the chat template wrote the opener into the prompt
 * (Qwen3-Thinking-2507, MiniMax-M2: `reasoning…</think>⏎⏎answer`); a leak that is not closed only ends
 * it; stray backticks only come after the last leak; a call in the reasoning block gets
 * `answerFollows` when visible text follows the block, which makes it not recoverable under
 * `reasoning: "auto"`.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan, isRecoverable } from "@tool-rescue/detector"
 * import { response } from "@tool-rescue/testing"
 *
 * const tools = ["read_file", "bash"]
 * fc.assert(
 *   fc.property(response({ tools }), ({ text, labels }) => {
 *     const found = scan(text, { tools }).markup.filter((m) => isRecoverable(m)).map((m) => m.toolName)
 *     return JSON.stringify(found) === JSON.stringify(labels.tools)
 *   }),
 * )
 * ```
 */
export function response(options: ResponseOptions): fc.Arbitrary<Sample<ResponseLabels>> {
  const format = options.format ?? defaultFormats
  const leakOptions = {
    tools: options.tools,
    format,
    unknownTools: options.unknownTools ?? false,
    maxCalls: 2,
  }
  const formats = typeof format === "string" ? [format] : format
  const examples = { tools: options.tools, format: formats.filter((id) => id !== "cline-xml") }
  const exampleFormats = examples.format.length > 0 ? examples : { tools: options.tools }

  const middle: fc.Arbitrary<Part> = fc.oneof(
    { weight: 3, arbitrary: prose({ strays: false }).map(visibleText) },
    { weight: 1, arbitrary: fencedExample({ ...exampleFormats, unclosed: false }).map(visibleText) },
    { weight: 1, arbitrary: inlineCodeExample(exampleFormats).map(visibleText) },
    {
      weight: 2,
      arbitrary: leakedCall({ ...leakOptions, closedOnly: true, anchored: "exclude" }).map(leakPart),
    },
  )
  const ending: fc.Arbitrary<Part> = fc.oneof(
    { weight: 2, arbitrary: leakedCall({ ...leakOptions, anchored: "exclude" }).map(leakPart) },
    { weight: 1, arbitrary: prose().map(visibleText) },
    { weight: 1, arbitrary: fencedExample(exampleFormats).map(visibleText) },
  )
  const composed = fc
    .record({
      thinking: fc.option(
        thinkingBlock({ tools: options.tools, format: formats.filter((id) => id !== "cline-xml") }),
        {
          nil: null,
        },
      ),
      parts: fc.array(middle, { maxLength: Math.max(0, options.maxParts ?? 4) }),
      end: fc.option(ending, { nil: null }),
    })
    .map(({ thinking, parts, end }): Sample<ResponseLabels> => {
      const body = end === null ? parts : [...parts, end]
      const answerFollows = body.some((part) => part.visible)
      const reasoningCalls = (thinking?.labels.calls ?? []).map(
        (call): CallLabel => ({ ...call, answerFollows, recoverable: call.offered && !answerFollows }),
      )
      const calls = [...reasoningCalls, ...body.flatMap((part) => part.calls)]
      const texts = [...(thinking === null ? [] : [thinking.text]), ...body.map((part) => part.text)]
      return {
        text: texts.join("\n\n"),
        labels: {
          ...labelsOf(calls),
          formats: calls.map((call) => call.format),
          reasoning: thinking !== null,
        },
      }
    })
  const anchoredFormats = formats.filter((id) => formatSpecs.get(id)?.startAnchored === true)
  if (anchoredFormats.length === 0) return composed
  let anchoredLeak: fc.Arbitrary<Sample<LeakLabels>>
  try {
    anchoredLeak = leakedCall({ ...leakOptions, format: anchoredFormats, anchored: "only" })
  } catch {
    return composed // no offered tool can be named in a start-anchored format
  }
  const anchored = fc
    .record({ reasoning: fc.option(reasoningBefore, { nil: null }), leak: anchoredLeak })
    .map(
      ({ reasoning, leak }): Sample<ResponseLabels> => ({
        text: `${reasoning ?? ""}${leak.text}`,
        labels: {
          ...labelsOf(leak.labels.calls),
          formats: leak.labels.calls.map((call) => call.format),
          reasoning: reasoning !== null,
        },
      }),
    )
  return fc.oneof({ weight: 6, arbitrary: composed }, { weight: 1, arbitrary: anchored })
}
