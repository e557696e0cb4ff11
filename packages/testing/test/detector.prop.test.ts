// The detector's strongest test (issue 4): every leaked call is detected with its labels under
// every chunking; no fenced or inline code example, and no prose, is. The labels come from
// FORMATS.md, not from the detector: a failure here is a detector gap or a labelling mistake,
// and either is worth a look.
import { fc, test } from "@fast-check/vitest"
import { createDetector, type FormatId, isRecoverable, type Markup } from "@tool-rescue/detector"
import { describe, expect, it } from "vitest"
import {
  type CallLabel,
  chunked,
  corpus,
  defaultFormats,
  fencedExample,
  htmlCodeExample,
  indentedCodeExample,
  inlineCodeExample,
  type Labels,
  type LeakedCallOptions,
  type LeakLabels,
  leakedCall,
  offeredInStep,
  prose,
  proseMentions,
  proseTagMentions,
  response,
  type Sample,
  spacedNameCall,
  strayTokens,
} from "../src/index.ts"
import { variantsOf } from "../src/leaked-call.ts"
import { reasoningBefore, reasoningGluedBefore } from "../src/response.ts"

const tools = ["read_file", "bash", "get-weather", "Glob"]

function detect(chunks: readonly string[], offered: readonly string[], formats?: readonly FormatId[]) {
  const detector = createDetector({ tools: offered, ...(formats === undefined ? {} : { formats }) })
  const visible: string[] = []
  const markup: Markup[] = []
  for (const chunk of chunks) {
    const result = detector.push(chunk)
    visible.push(result.text)
    markup.push(...result.markup)
  }
  const last = detector.end()
  visible.push(last.text)
  markup.push(...last.markup)
  return { text: visible.join(""), markup }
}

/** A readable digest of what was found, for failure messages. */
const digest = (markup: readonly Markup[]) =>
  markup.map((m) => ({
    format: m.format,
    toolName: m.toolName,
    offered: m.offered,
    opening: m.opening,
    closing: m.closing,
    complete: m.complete,
    inReasoning: m.inReasoning,
    answerFollows: m.answerFollows,
    recoverable: isRecoverable(m),
  }))

/** Asserts the detector's markup against the labels; fields a label leaves `undefined` are not checked. */
function expectLabels(markup: readonly Markup[], labels: Labels): void {
  const found = digest(markup)
  const expected = labels.calls.map((call: CallLabel) => ({
    format: call.format,
    toolName: call.toolName,
    offered: call.offered,
    inReasoning: call.inReasoning,
    recoverable: call.recoverable,
    ...(call.opening === undefined ? {} : { opening: call.opening }),
    ...(call.closing === undefined ? {} : { closing: call.closing }),
    ...(call.complete === undefined ? {} : { complete: call.complete }),
    ...(call.inReasoning ? { answerFollows: call.answerFollows } : {}),
  }))
  const comparable = found.map((m, i) => {
    const label = expected[i]
    if (label === undefined) return m
    const picked: Record<string, unknown> = {}
    for (const key of Object.keys(label)) picked[key] = m[key as keyof typeof m]
    // Formats with the same text shape may be reported under either id.
    if (labels.calls[i]!.formatAliases.includes(m.format)) picked.format = label.format
    return picked
  })
  expect(comparable).toEqual(expected)
  expect(markup.filter((m) => isRecoverable(m)).map((m) => m.toolName)).toEqual(labels.tools)
}

const withChunks = <S extends Sample>(arbitrary: fc.Arbitrary<S>) =>
  arbitrary.chain((sample) => fc.tuple(fc.constant(sample), chunked(sample.text)))

/** Reasoning (from `reasoning`), then a leak (`leakedCall` with `options`), and a chunking of both. */
const afterReasoning = (reasoning: fc.Arbitrary<string>, options: Omit<LeakedCallOptions, "tools">) =>
  fc
    .record({ reasoning, leak: leakedCall({ tools, unknownTools: true, ...options }) })
    .chain(({ reasoning, leak }) =>
      fc.tuple(fc.constant({ reasoning, leak }), chunked(reasoning + leak.text)),
    )

/** The leak after the reasoning is detected with its labels; the reasoning stays visible, and of the leak only whitespace between calls. */
function expectLeakAfterReasoning([{ reasoning, leak }, chunks]: [
  { readonly reasoning: string; readonly leak: Sample<LeakLabels> },
  string[],
]): void {
  const result = detect(chunks, tools)
  expectLabels(result.markup, leak.labels)
  expect(result.text.startsWith(reasoning)).toBe(true)
  expect(result.text.slice(reasoning.length).trim()).toBe("")
}

describe("the detector against the arbitraries", () => {
  for (const format of defaultFormats) {
    for (const variant of variantsOf(format)) {
      it(`every ${format} leakedCall (${variant}) is detected with its labels, under every chunking`, () => {
        fc.assert(
          fc.property(
            withChunks(leakedCall({ tools, format, variants: [variant], unknownTools: true })),
            ([{ labels }, chunks]) => {
              const result = detect(chunks, tools)
              expectLabels(result.markup, labels)
              // Only the whitespace between separately enveloped calls stays visible.
              expect(result.text.trim()).toBe("")
            },
          ),
          { numRuns: 40 },
        )
      })
    }
  }

  test.prop([afterReasoning(reasoningBefore, { anchored: "only" })])(
    "a start-anchored leak right after reasoning (a whole <think> block, or its closer alone) is detected with its labels, under every chunking",
    expectLeakAfterReasoning,
  )

  test.prop([afterReasoning(reasoningGluedBefore, { format: "xlam" })])(
    "a JSON call list glued to a lone </think> is detected with its labels, under every chunking",
    expectLeakAfterReasoning,
  )

  test.prop([withChunks(spacedNameCall({ tools: [...tools, "get weather", "run all tests"] }))])(
    "a GLM call naming an offered tool with spaces in its name (Poolside Laguna) is detected with its labels, under every chunking",
    ([{ labels }, chunks]) => {
      const result = detect(chunks, [...tools, "get weather", "run all tests"])
      expectLabels(result.markup, labels)
      expect(result.text).toBe("")
    },
  )

  test.prop([withChunks(leakedCall({ tools, format: "cline-xml" }))])(
    "cline-xml leaks are detected when the format is enabled explicitly",
    ([{ labels }, chunks]) => {
      expectLabels(detect(chunks, tools, [...defaultFormats, "cline-xml"]).markup, labels)
    },
  )

  test.prop([withChunks(fencedExample({ tools }))])(
    "no fencedExample is detected; the whole block stays visible",
    ([{ text }, chunks]) => {
      const result = detect(chunks, tools)
      expect(digest(result.markup)).toEqual([])
      expect(result.text).toBe(text)
    },
  )

  test.prop([withChunks(inlineCodeExample({ tools }))])(
    "no inlineCodeExample is detected; the whole span stays visible",
    ([{ text }, chunks]) => {
      const result = detect(chunks, tools)
      expect(digest(result.markup)).toEqual([])
      expect(result.text).toBe(text)
    },
  )

  test.prop([withChunks(indentedCodeExample({ tools }))])(
    "no indentedCodeExample is detected; the whole block stays visible",
    ([{ text }, chunks]) => {
      const result = detect(chunks, tools)
      expect(digest(result.markup)).toEqual([])
      expect(result.text).toBe(text)
    },
  )

  test.prop([withChunks(htmlCodeExample({ tools }))])(
    "no htmlCodeExample is detected; the whole block stays visible",
    ([{ text }, chunks]) => {
      const result = detect(chunks, tools)
      expect(digest(result.markup)).toEqual([])
      expect(result.text).toBe(text)
    },
  )

  test.prop([withChunks(proseMentions({ tools }))])(
    "prose that names headers, tags and offered tools is shown whole; nothing is detected",
    ([{ text }, chunks]) => {
      const result = detect(chunks, tools)
      expect(digest(result.markup)).toEqual([])
      expect(result.text).toBe(text)
    },
  )

  test.prop([withChunks(offeredInStep({ tools }))])(
    "every envelope token is withheld and reported, whatever tools the step offers",
    ([{ labels }, chunks]) => {
      fc.pre(labels.calls.length > 0)
      const result = detect(chunks, labels.offered)
      expectLabels(result.markup, labels)
      expect(result.text.trim()).toBe("")
    },
  )

  test.prop([withChunks(proseTagMentions({ tools }))])(
    "tags named in prose lose nothing: the prose is shown, a call after it is reported outside reasoning",
    ([{ text, labels }, chunks]) => {
      const result = detect(chunks, tools)
      expect(result.text.startsWith(labels.prose)).toBe(true)
      expectLabels(result.markup, labels)
      // Everything is shown or reported: the text outside the reported spans is what was shown.
      let outside = ""
      let at = 0
      for (const m of result.markup) {
        outside += text.slice(at, m.start)
        at = m.end
      }
      expect(result.text).toBe(outside + text.slice(at))
    },
  )

  // LM Studio's markers are its prompt's plain text, not special tokens (FORMATS.md, lmstudio): named
  // anywhere in prose (mid-sentence, at a line start, at the start of the answer, side by side,
  // before a tool's name), with no call body (no `{`) after them, they are shown and nothing is reported.
  const lmstudioMention = fc
    .array(
      fc.oneof(
        fc.constantFrom("[TOOL_REQUEST]", "[END_TOOL_REQUEST]", "[TOOL_REQUEST_END]"),
        fc.constantFrom(...tools, "wraps", "calls", "in", "and", "markers.", "[name]"),
      ),
      { minLength: 1, maxLength: 10 },
    )
    .chain((parts) =>
      fc
        .array(fc.constantFrom(" ", "", "\n", "\n\n"), { minLength: parts.length, maxLength: parts.length })
        .map((gaps) => parts.map((part, i) => part + gaps[i]).join("")),
    )
  test.prop([lmstudioMention.chain((text) => fc.tuple(fc.constant(text), chunked(text)))])(
    "LM Studio's markers named in prose are shown whole; nothing is reported",
    ([text, chunks]) => {
      const result = detect(chunks, tools)
      expect(digest(result.markup)).toEqual([])
      expect(result.text).toBe(text)
    },
  )

  test.prop([withChunks(strayTokens())])(
    "a family's special token alone, in any spelling, is withheld and reported in its role; the prose around it is shown",
    ([{ labels }, chunks]) => {
      const result = detect(chunks, tools)
      expect(result.text).toBe(labels.visible)
      expect(
        result.markup.map((m) => ({
          format: m.format,
          toolName: m.toolName,
          opening: m.opening,
          closing: m.closing,
          complete: m.complete,
        })),
      ).toEqual(
        labels.tokens.map((t) => ({
          format: t.format,
          toolName: undefined,
          opening: t.role === "open",
          closing: t.role === "close",
          complete: t.role === "close",
        })),
      )
      expect(result.markup.some((m) => isRecoverable(m))).toBe(false)
    },
  )

  test.prop([withChunks(prose())])(
    "no prose is detected; every character stays visible",
    ([{ text }, chunks]) => {
      const result = detect(chunks, tools)
      expect(digest(result.markup)).toEqual([])
      expect(result.text).toBe(text)
    },
  )

  test.prop([withChunks(response({ tools, format: defaultFormats, unknownTools: true }))])(
    "every response (every default format) is detected with its labels, under every chunking",
    ([{ text, labels }, chunks]) => {
      const result = detect(chunks, tools)
      expectLabels(result.markup, labels)
      if (labels.calls.length === 0) expect(result.text).toBe(text)
    },
  )
})

describe("the detector against the corpus", () => {
  for (const sample of corpus.filter((s) => s.scope === "core")) {
    it(`${sample.id} (${sample.format}, ${sample.source})`, () => {
      const { markup } = detect([sample.text], sample.tools)
      expect(markup.filter((m) => isRecoverable(m)).map((m) => m.toolName)).toEqual(sample.expect.tools)
    })
  }
})
