// Properties of the arbitraries themselves, independent of any detector: the text a value
// carries is what its labels claim, variants are what they say, examples and prose are built
// the way CommonMark reads them.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import {
  allFormats,
  chunked,
  fencedExample,
  inlineCodeExample,
  type Labels,
  type LeakVariant,
  leakedCall,
  leakVariants,
  prose,
  response,
  strayTokens,
  thinkingBlock,
} from "../src/index.ts"
import { type CallSpec, formatSpecs } from "../src/leak-formats.ts"
import { buildLeak } from "../src/leaked-call.ts"

const tools = ["read_file", "bash", "get-weather", "Glob"]

/** Every envelope marker and call header of the catalogue that does not embed a tool name. */
const markerLiterals: string[] = (() => {
  const probe: CallSpec[] = [{ name: "NAME", args: [["path", "v"]] }]
  const found = new Set<string>([
    "<function=",
    "<parameter=",
    "<invoke name=",
    "to=functions.",
    "<arg_key>",
    "<|tool_call_begin|>",
    "<｜tool▁call▁begin｜>",
    "<｜tool_call_begin｜>",
    "<｜DSML｜invoke",
    "]<]minimax[>[",
    "<tool_sep>",
    "call:NAME",
    ">>>NAME",
    "<think>",
    "[THINK]",
    "<seed:think>",
  ])
  for (const spec of formatSpecs.values()) {
    if (spec.id === "cline-xml") continue // its envelope is any tag named after a tool
    for (let style = 0; style < spec.styles; style++) {
      const rendered = spec.render(probe, style)
      const segments = [...rendered.head, ...rendered.tail, ...rendered.calls.flat()]
      for (const segment of segments) {
        const text = segment.text.trim()
        if (
          (segment.role === "open" || segment.role === "close") &&
          text.length > 1 &&
          !text.includes("NAME") &&
          // A fence alone is Markdown's (RWKV's closer is the fence after its `**Tool Call:**` line).
          text !== "```"
        ) {
          found.add(text)
        }
      }
    }
  }
  return [...found]
})()

/** Whether `needles` occur in `text` in this order, each after the previous one. */
function inOrder(text: string, needles: readonly string[]): boolean {
  let at = 0
  for (const needle of needles) {
    const found = text.indexOf(needle, at)
    if (found < 0) return false
    at = found + needle.length
  }
  return true
}

/** The text names the labelled calls in order, and `labels.tools` are the recoverable ones. */
function expectCallsInOrder(text: string, labels: Labels): void {
  expect(
    inOrder(
      text,
      labels.calls.map((call) => call.toolName),
    ),
  ).toBe(true)
  expect(labels.tools).toEqual(labels.calls.filter((call) => call.recoverable).map((call) => call.toolName))
}

describe("leakedCall", () => {
  test.prop([leakedCall({ tools, format: allFormats, unknownTools: true })])(
    "names its calls in order; labels.tools are the recoverable (offered) calls",
    ({ text, labels }) => {
      expect(labels.calls.length).toBeGreaterThan(0)
      expectCallsInOrder(text, labels)
      expect(labels.recoverable).toBe(labels.tools.length > 0)
      for (const call of labels.calls) {
        expect(call.format).toBe(labels.format)
        expect(call.recoverable).toBe(call.offered)
        expect(call.offered).toBe(tools.includes(call.toolName))
      }
      const last = labels.calls.at(-1)!
      if (labels.variant === "truncated" || labels.variant === "missing-closing")
        expect(last.complete).toBe(false)
      if (labels.variant === "missing-opening")
        for (const call of labels.calls) expect(call.opening ?? false).toBe(false)
    },
  )

  test.prop([
    fc.constantFrom(...allFormats),
    fc.nat({ max: 7 }),
    fc.array(
      fc.record({
        name: fc.constantFrom("read_file", "bash"),
        args: fc.uniqueArray(fc.tuple(fc.constantFrom("path", "x", "limit"), fc.string({ maxLength: 5 })), {
          selector: ([key]) => key,
          maxLength: 2,
        }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    fc.string({ minLength: 2, maxLength: 8 }),
    fc.nat(),
  ])(
    "variants drop exactly their markers: cut-off variants are proper prefixes of the complete text",
    (id, style, drafts, tail, cut) => {
      const spec = formatSpecs.get(id)!
      const calls: CallSpec[] = drafts.map((draft, i) =>
        i === drafts.length - 1
          ? { name: draft.name, args: [...draft.args, ["content", tail.replace(/[<>`\\"]/g, "a")]] }
          : draft,
      )
      const offered = calls.map(() => true)
      const of = (variant: LeakVariant) => buildLeak(spec, style, variant, calls, offered, cut).text
      const complete = of("complete")
      const truncated = of("truncated")
      expect(complete.startsWith(truncated)).toBe(true)
      expect(truncated.length).toBeLessThan(complete.length)
      if (spec.hasClosing(style) && !spec.startAnchored) {
        const missingClosing = of("missing-closing")
        expect(complete.startsWith(missingClosing)).toBe(true)
        expect(missingClosing.length).toBeLessThan(complete.length)
      }
      if (spec.innerHeader(style) && !spec.startAnchored) {
        const missingOpening = of("missing-opening")
        expect(missingOpening.length).toBeLessThan(complete.length)
        expect(complete.endsWith(missingOpening.slice(-10))).toBe(true)
        if (spec.hasClosing(style)) expect(missingOpening.startsWith(of("bare"))).toBe(true)
      }
    },
  )

  it("produces every variant", () => {
    for (const variant of leakVariants) {
      const sample = fc.sample(leakedCall({ tools, variants: [variant] }), { numRuns: 200, seed: 1 })
      expect(sample.some((value) => value.labels.variant === variant)).toBe(true)
    }
  })

  test.prop([leakedCall({ tools, closedOnly: true })])(
    "closedOnly values end with the envelope closed",
    ({ labels }) => {
      expect(labels.closed).toBe(true)
      expect(labels.startAnchored).toBe(false)
    },
  )
})

describe("prose", () => {
  test.prop([prose()])("contains no marker of any format", ({ text, labels }) => {
    for (const marker of markerLiterals) expect(text).not.toContain(marker)
    expect(labels).toEqual({ tools: [], recoverable: false, calls: [] })
  })

  test.prop([prose({ strays: false })])(
    "without strays, every backtick run is closed (CommonMark §6.1)",
    ({ text }) => {
      expect(strayRuns(text)).toBe(0)
    },
  )

  it("with strays (the default), some values hold an unmatched backtick run", () => {
    expect(fc.sample(prose(), { numRuns: 300, seed: 5 }).some(({ text }) => strayRuns(text) > 0)).toBe(true)
  })
})

/**
 * Backtick runs that no later run of the same length closes (CommonMark §6.1), per paragraph
 * (a code span never crosses a blank line); fenced-block paragraphs are skipped.
 */
function strayRuns(text: string): number {
  let strays = 0
  for (const paragraph of text.split("\n\n")) {
    if (/^ {0,3}(`{3,}|~{3,})/.test(paragraph)) continue
    const runs = [...paragraph.matchAll(/`+/g)].map((match) => match[0].length)
    let i = 0
    while (i < runs.length) {
      let j = i + 1
      while (j < runs.length && runs[j] !== runs[i]) j++
      if (j === runs.length) {
        strays++
        i++
      } else {
        i = j + 1
      }
    }
  }
  return strays
}

/** A tiny CommonMark §4.5 reader: where does the fenced block that opens on line 0 close? */
function fenceCloseLine(text: string): number | undefined {
  const lines = text.split("\n")
  const opening = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(lines[0] ?? "")
  if (opening === null) throw new Error("no opening fence")
  const fence = opening[2]!
  for (let i = 1; i < lines.length; i++) {
    const closing = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[i]!)
    if (closing !== null && closing[1]![0] === fence[0] && closing[1]!.length >= fence.length) return i
  }
  return undefined
}

describe("fencedExample / inlineCodeExample", () => {
  test.prop([fencedExample()])(
    "is one fenced block that closes on its last line (or never, when unclosed)",
    ({ text, labels }) => {
      const close = fenceCloseLine(text)
      if (labels.unclosed) expect(close).toBeUndefined()
      else expect(close).toBe(text.split("\n").length - 1)
      expect(labels.calls).toEqual([])
      expect(labels.tools).toEqual([])
    },
  )

  test.prop([inlineCodeExample()])(
    "is one line with one code span whose delimiter appears exactly twice",
    ({ text }) => {
      expect(text).not.toContain("\n")
      const runs = [...text.matchAll(/`+/g)].map((match) => match[0].length)
      const delimiter = Math.max(...runs)
      expect(runs.filter((run) => run === delimiter)).toHaveLength(2)
    },
  )
})

describe("thinkingBlock / response", () => {
  test.prop([thinkingBlock({ tools, call: "always" })])(
    "a call inside reasoning is labelled inReasoning",
    ({ text, labels }) => {
      const [open, close] = labels.delimiters
      expect(text.startsWith(open)).toBe(true)
      expect(text.endsWith(close)).toBe(true)
      expect(labels.calls.length).toBeGreaterThan(0)
      for (const call of labels.calls) {
        expect(call.inReasoning).toBe(true)
        expect(call.answerFollows).toBe(false)
      }
    },
  )

  test.prop([response({ tools, unknownTools: true })])(
    "labels list calls in text order and recoverable tools among them",
    ({ text, labels }) => {
      expectCallsInOrder(text, labels)
      for (const call of labels.calls) {
        if (!call.offered) expect(call.recoverable).toBe(false)
        if (call.inReasoning && call.answerFollows) expect(call.recoverable).toBe(false)
        if (!call.inReasoning) expect(call.answerFollows).toBe(false)
      }
      expect(labels.formats).toEqual(labels.calls.map((call) => call.format))
    },
  )
})

describe("strayTokens", () => {
  test.prop([strayTokens()])(
    "the visible text is the text without its tokens, in order; each token stands alone between words",
    ({ text, labels }) => {
      let rest = text
      let shown = ""
      for (const token of labels.tokens) {
        const at = rest.indexOf(token.text)
        expect(at).toBeGreaterThan(0)
        expect(rest[at - 1]).toBe(" ")
        expect(rest[at + token.text.length]).toBe(" ")
        shown += rest.slice(0, at)
        rest = rest.slice(at + token.text.length)
      }
      expect(shown + rest).toBe(labels.visible)
      expect(labels.calls).toEqual([])
    },
  )

  it("draws every family in every role it has", () => {
    const seen = new Set(
      fc
        .sample(strayTokens(), { numRuns: 400, seed: 7 })
        .flatMap(({ labels }) => labels.tokens.map((t) => `${t.format}:${t.role}`)),
    )
    expect([...seen].sort()).toEqual(
      [
        "deepseek-dsml:close",
        "deepseek-dsml:open",
        "hunyuan:call",
        "hunyuan:close",
        "hunyuan:open",
        "kimi-k3:close",
        "kimi-k3:open",
        "minimax-m3:close",
        "minimax-m3:open",
        "plamo3:open",
        "plamo3:call",
        "plamo3:close",
        "inkling:open",
        "solar-open2:open",
        "k2-horizon:open",
        "k2-horizon:call",
        "k2-horizon:close",
        "solar-open2:call",
        "solar-open2:close",
        "glm:open",
        "glm:close",
        "dots:open",
      ].sort(),
    )
  })
})

describe("chunked", () => {
  const text = fc.oneof(
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.string({
      unit: fc.constantFrom("<", "｜", "▁", "`", "a", "\n", "😀", "\ud83d", "\ude00"),
      maxLength: 60,
    }),
  )
  test.prop([text.chain((value) => fc.tuple(fc.constant(value), chunked(value)))])(
    "partitions the text into non-empty chunks that concatenate back to it",
    ([value, chunks]) => {
      expect(chunks.join("")).toBe(value)
      for (const chunk of chunks) expect(chunk.length).toBeGreaterThan(0)
    },
  )

  it("reaches one-character chunks and splits inside surrogate pairs and markers", () => {
    const value = "a😀<tool_call>"
    const samples = fc.sample(chunked(value), { numRuns: 300, seed: 3 })
    expect(samples.some((chunks) => chunks.length === value.length)).toBe(true)
    expect(samples.some((chunks) => chunks.some((chunk) => chunk.endsWith("\ud83d")))).toBe(true)
    expect(samples.some((chunks) => chunks.some((chunk) => chunk.endsWith("<tool")))).toBe(true)
  })
})
