/**
 * Properties of the middleware as the AI SDK user sees it (through `streamText` /
 * `generateText` over `MockLanguageModelV4`), for any split of the model's text into deltas.
 */
import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider"
import { fc, test } from "@fast-check/vitest"
import type { RecoveryEvent } from "@tool-rescue/recovery"
import { chunked, response } from "@tool-rescue/testing"
import { generateText, streamText, tool, wrapLanguageModel } from "ai"
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test"
import { describe, expect } from "vitest"
import { z } from "zod"
import { toolCallRecoveryMiddleware } from "../src/index.ts"
import { type Part, type Reply, readAll, scriptedModel, usage, wellFormed } from "./fixtures.ts"

/** Leaked calls in several formats (FORMATS.md examples), each naming the offered tool `Glob`. */
const LEAKS: ReadonlyArray<{ readonly text: string; readonly fragments: readonly string[] }> = [
  {
    text: "<function=Glob>\n<parameter=pattern>\n*.md\n</parameter>\n</function>\n</tool_call>",
    fragments: ["<function=", "<parameter=", "</function>", "</tool_call>"],
  },
  {
    text: '<tool_call>\n{"name": "Glob", "arguments": {"pattern": "*.md"}}\n</tool_call>',
    fragments: ["<tool_call>", "</tool_call>", '"name": "Glob"'],
  },
  {
    text: "<tool_call>\n<function=Glob>\n<parameter=pattern>*.md</parameter>\n</function>\n</tool_call>",
    fragments: ["<tool_call>", "<function=", "</tool_call>"],
  },
  {
    text: "<tool_call>Glob<arg_key>pattern</arg_key><arg_value>*.md</arg_value></tool_call>",
    fragments: ["<tool_call>", "<arg_key>", "</tool_call>"],
  },
  {
    text: '<minimax:tool_call>\n<invoke name="Glob">\n<parameter name="pattern">*.md</parameter>\n</invoke>\n</minimax:tool_call>',
    fragments: ["<minimax:tool_call>", "<invoke", "</minimax:tool_call>"],
  },
]

/** Prose that cannot form markup or Markdown code: no `<`, `[`, `|`, backticks, tildes or braces. */
const prose = fc.stringMatching(/^[A-Za-z0-9 .,:;!?'"\n-]{0,80}$/)

/** Cut points for `text`, as a list of chunk sizes (1…12). */
function split(text: string, sizes: readonly number[]): string[] {
  const chunks: string[] = []
  let at = 0
  let i = 0
  while (at < text.length) {
    const size = sizes.length === 0 ? text.length : (sizes[i++ % sizes.length] ?? 1)
    chunks.push(text.slice(at, at + size))
    at += size
  }
  return chunks
}
const sizes = fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 8 })

const call: Reply = { calls: [{ toolName: "Glob", input: { pattern: "*.md" } }] }

function tools(executed: string[]) {
  return {
    Glob: tool({
      inputSchema: z.object({ pattern: z.string() }),
      execute: async ({ pattern }) => {
        executed.push(pattern)
        return "ok"
      },
    }),
    Read: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => "ok" }),
  }
}

/** What the user of one `streamText` step sees. */
async function observeStream(model: LanguageModelV4) {
  const executed: string[] = []
  const wrapped = wrapLanguageModel({ model, middleware: toolCallRecoveryMiddleware() })
  const result = streamText({ model: wrapped, prompt: "go", tools: tools(executed), onError: () => {} })
  let shown = ""
  let reasoning = ""
  const errors: string[] = []
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") shown += part.text
    if (part.type === "reasoning-delta") reasoning += part.text
    if (part.type === "error") errors.push(String((part.error as { code?: unknown }).code))
  }
  return { shown, reasoning, executed, errors, finishReason: await result.finishReason }
}

describe("what the user sees does not depend on how the model's text is split into deltas", () => {
  test.prop([prose, fc.option(fc.constantFrom(...LEAKS), { nil: undefined }), prose, sizes])(
    "streamText: same visible text, same executions, same number of model calls",
    async (before, leak, after, chunkSizes) => {
      const text = before + (leak?.text ?? "") + after
      const run = async (chunks: string[]) => {
        const model = scriptedModel([{ text: chunks }, call])
        const seen = await observeStream(model)
        return { ...seen, calls: (model as MockLanguageModelV4).doStreamCalls.length }
      }
      const whole = await run([text])
      const chunked = await run(split(text, chunkSizes))
      expect(chunked).toEqual(whole)
      // The oracle: a leak is recovered (one retry, the tool runs once); prose passes unchanged.
      if (leak === undefined) {
        expect(whole.shown).toBe(text)
        expect(whole.calls).toBe(1)
      } else {
        expect(whole.executed).toEqual(["*.md"])
        expect(whole.calls).toBe(2)
      }
    },
  )

  test.prop([prose, fc.constantFrom(...LEAKS), prose, sizes])(
    "generateText runs the same recovery as streamText, and keeps only the corrected response",
    async (before, leak, after, chunkSizes) => {
      const text = before + leak.text + after
      const streamed = await observeStream(scriptedModel([{ text: split(text, chunkSizes) }, call]))
      const executed: string[] = []
      const generated = await generateText({
        model: wrapLanguageModel({
          model: scriptedModel([{ text: [text] }, call]),
          middleware: toolCallRecoveryMiddleware(),
        }),
        prompt: "go",
        tools: tools(executed),
      })
      expect(executed).toEqual(streamed.executed)
      // Nothing was shown in a non-streaming call: the malformed response's prose is gone from
      // the result and the history; the stream showed it before the retry.
      expect(streamed.shown).toBe(before + after)
      expect(generated.text).toBe("")
      const historyText = generated.response.messages.flatMap((message) =>
        message.role === "assistant" && Array.isArray(message.content)
          ? message.content.flatMap((part) => (part.type === "text" ? [part.text] : []))
          : [],
      )
      expect(historyText.join("")).toBe("")
    },
  )
})

describe("generated responses in every format (@tool-rescue/testing), any chunking", () => {
  const offered = ["read_file", "bash"]
  const cases = response({ tools: offered, unknownTools: true }).chain((sample) =>
    fc.tuple(fc.constant(sample), chunked(sample.text)),
  )

  test.prop([cases])(
    "the user sees exactly the text minus the withheld markup; recoverable calls are retried once, nothing else",
    async ([sample, chunks]) => {
      // The retry answers with a structured call to the first tool the response leaked.
      const expected = sample.labels.tools[0] ?? "read_file"
      const model = scriptedModel([{ text: chunks }, { calls: [{ toolName: expected, input: {} }] }])
      const events: RecoveryEvent[] = []
      const executed: string[] = []
      const result = streamText({
        model: wrapLanguageModel({
          model,
          middleware: toolCallRecoveryMiddleware({ onEvent: (e) => events.push(e) }),
        }),
        prompt: "go",
        tools: Object.fromEntries(
          offered.map((name) => [
            name,
            tool({ inputSchema: z.object({}), execute: async () => void executed.push(name) }),
          ]),
        ),
      })
      const shown = await result.text

      // Lossless: what was shown is the model's text with exactly the withheld spans cut out.
      const spans = events.flatMap((e) => (e.type === "markup-detected" && e.round === 0 ? [e.markup] : []))
      let rest = ""
      let at = 0
      for (const m of [...spans].sort((a, b) => a.start - b.start)) {
        rest += sample.text.slice(at, m.start)
        at = Math.max(at, m.end)
      }
      rest += sample.text.slice(at)
      expect(shown).toBe(rest)

      // The adapter acts on recovery's decision, and only on it: a retry (and one execution of
      // the retry's structured call) exactly when recoverable markup was found. Whether the
      // detector finds every labelled call is the detector's own property.
      const recoverable = events.some((e) => e.type === "markup-detected" && e.round === 0 && e.recoverable)
      expect(model.doStreamCalls).toHaveLength(recoverable ? 2 : 1)
      expect(executed).toEqual(recoverable ? [expected] : [])
    },
  )
})

describe("markup is never shown", () => {
  test.prop([prose, fc.constantFrom(...LEAKS), prose, sizes, fc.boolean()])(
    "neither in text deltas, nor in reasoning, nor after a failed retry",
    async (before, leak, after, chunkSizes, retryLeaksToo) => {
      const first = { text: split(before + leak.text + after, chunkSizes) }
      const second = retryLeaksToo
        ? { reasoning: split(leak.text, [3]), text: split(leak.text, chunkSizes) }
        : call
      const seen = await observeStream(scriptedModel([first, second]))
      for (const fragment of leak.fragments) {
        expect(seen.shown).not.toContain(fragment)
        expect(seen.reasoning).not.toContain(fragment)
      }
      if (retryLeaksToo) {
        expect(seen.errors).toEqual(["repeated-markup"])
        expect(seen.finishReason).toBe("error")
        expect(seen.executed).toEqual([])
      } else {
        expect(seen.errors).toEqual([])
        expect(seen.executed).toEqual(["*.md"])
      }
    },
  )

  test.prop([prose, fc.constantFrom(...LEAKS), sizes])(
    "a call shown as a fenced Markdown example is shown verbatim and never retried",
    async (before, leak, chunkSizes) => {
      const text = `${before}\n\n\`\`\`xml\n${leak.text}\n\`\`\`\nThat is the format.`
      const model = scriptedModel([{ text: split(text, chunkSizes) }])
      const seen = await observeStream(model)
      expect(seen.shown).toBe(text)
      expect(model.doStreamCalls).toHaveLength(1)
    },
  )
})

/** One attempt's parts: text and reasoning blocks (openai-compatible reuses ids), raw chunks, calls. */
const block = fc.record({
  kind: fc.constantFrom("text", "reasoning"),
  id: fc.constantFrom("txt-0", "reasoning-0", "a"),
  deltas: fc.array(prose, { maxLength: 4 }),
  raw: fc.boolean(),
})

function attemptParts(
  attempt: number,
  blocks: ReadonlyArray<{ kind: string; id: string; deltas: readonly string[]; raw: boolean }>,
  leak: string | undefined,
  withCall: boolean,
): Part[] {
  // A raw marker first: raw parts pass through, so the output shows where each attempt begins.
  const parts: Part[] = [
    { type: "stream-start", warnings: [] },
    { type: "raw", rawValue: { attempt } },
  ]
  for (const b of blocks) {
    const kind = b.kind === "text" ? "text" : "reasoning"
    parts.push({ type: `${kind}-start`, id: b.id })
    for (const delta of b.deltas) {
      if (b.raw) parts.push({ type: "raw", rawValue: { delta } })
      parts.push({ type: `${kind}-delta`, id: b.id, delta })
    }
    parts.push({ type: `${kind}-end`, id: b.id })
  }
  if (leak !== undefined) {
    parts.push({ type: "text-start", id: "txt-0" })
    for (const delta of split(leak, [4, 9])) parts.push({ type: "text-delta", id: "txt-0", delta })
    parts.push({ type: "text-end", id: "txt-0" })
  }
  if (withCall) {
    parts.push({ type: "tool-call", toolCallId: "c1", toolName: "Glob", input: '{"pattern":"*.md"}' })
  }
  parts.push({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(3, 4) })
  return parts
}

describe("the spliced stream is one well-formed response", () => {
  test.prop([
    fc.array(block, { maxLength: 4 }),
    fc.constantFrom(...LEAKS),
    fc.array(block, { maxLength: 4 }),
    fc.boolean(),
  ])(
    "blocks closed, ids unique across attempts, one stream-start, one finish with summed usage",
    async (a, leak, b, fixed) => {
      const model = new MockLanguageModelV4({
        doStream: [
          { stream: convertArrayToReadableStream(attemptParts(0, a, leak.text, false)) },
          { stream: convertArrayToReadableStream(attemptParts(1, b, fixed ? undefined : leak.text, fixed)) },
        ],
      })
      const params: LanguageModelV4CallOptions = {
        prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
        tools: [{ type: "function", name: "Glob", inputSchema: { type: "object" } }],
      }
      const parts = await readAll(
        await wrapLanguageModel({ model, middleware: toolCallRecoveryMiddleware() }).doStream(params),
      )
      // ids may repeat within one attempt (after their block ended) but never across attempts.
      const problems = wellFormed(parts, { allowReuse: true })
      expect(problems).toEqual([])
      const attemptsOf = new Map<string, Set<number>>()
      let attempt = -1
      for (const part of parts) {
        const marker = part.type === "raw" ? (part.rawValue as { attempt?: number }).attempt : undefined
        if (marker !== undefined) attempt = marker
        if (part.type === "text-start" || part.type === "reasoning-start") {
          const key = `${part.type}:${part.id}`
          attemptsOf.set(key, (attemptsOf.get(key) ?? new Set()).add(attempt))
        }
      }
      for (const attempts of attemptsOf.values()) expect(attempts.size).toBe(1)
      const finish = parts.at(-1)
      expect(finish?.type).toBe("finish")
      if (finish?.type === "finish") {
        expect(finish.usage.inputTokens.total).toBe(6)
        expect(finish.finishReason.unified).toBe(fixed ? "stop" : "error")
      }
      expect(parts.filter((p) => p.type === "error")).toHaveLength(fixed ? 0 : 1)
    },
  )

  test.prop([fc.array(block, { maxLength: 5 })])(
    "without markup, the wrapped model streams the same content as the bare one",
    async (blocks) => {
      const params: LanguageModelV4CallOptions = {
        prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
        tools: [{ type: "function", name: "Glob", inputSchema: { type: "object" } }],
      }
      const parts = () => convertArrayToReadableStream(attemptParts(0, blocks, undefined, false))
      const bare = await readAll(
        await new MockLanguageModelV4({ doStream: { stream: parts() } }).doStream(params),
      )
      const model = new MockLanguageModelV4({ doStream: { stream: parts() } })
      const wrapped = await readAll(
        await wrapLanguageModel({ model, middleware: toolCallRecoveryMiddleware() }).doStream(params),
      )
      expect(content(wrapped)).toEqual(content(bare))
      expect(wellFormed(wrapped, { allowReuse: true })).toEqual([])
    },
  )
})

/**
 * The content of a stream: each non-empty block's kind, id and whole text, and every other part
 * in order. Empty blocks are dropped (the middleware delays `*-start` until there is text) and
 * deltas may be re-chunked by the hold-back; nothing else may change.
 */
function content(parts: readonly Part[]): unknown[] {
  const out: unknown[] = []
  const open = new Map<string, { kind: string; id: string; text: string }>()
  for (const part of parts) {
    switch (part.type) {
      case "text-start":
      case "reasoning-start":
        open.set(`${part.type}:${part.id}`, { kind: part.type, id: part.id, text: "" })
        break
      case "text-delta":
      case "reasoning-delta": {
        const entry = open.get(`${part.type.replace("delta", "start")}:${part.id}`)
        if (entry !== undefined) entry.text += part.delta
        break
      }
      case "text-end":
      case "reasoning-end": {
        const key = `${part.type.replace("end", "start")}:${part.id}`
        const entry = open.get(key)
        open.delete(key)
        if (entry !== undefined && entry.text.length > 0) out.push(entry)
        break
      }
      default:
        out.push(part)
    }
  }
  return out
}
