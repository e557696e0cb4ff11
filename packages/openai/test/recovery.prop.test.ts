/**
 * Properties of the wrapper, through the real `openai` client over HTTP against the replay
 * server, over real corpus leaks and arbitrary chunkings.
 */

import { fc, test } from "@fast-check/vitest"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import {
  chunked,
  fencedExample,
  inlineCodeExample,
  leakedCall,
  prose,
  type ReplayStep,
} from "@tool-rescue/testing"
import type { CorpusSample } from "@tool-rescue/testing/corpus"
import type OpenAI from "openai"
import { describe, expect } from "vitest"
import { chatTool, collect, contentOf, harness, leaks, responsesTool } from "./support/harness.ts"

const RUNS = { numRuns: 30 }

/** A scripted server whose answers each run sets. */
async function scripted() {
  const queue: ReplayStep[] = []
  const h = await harness(() => queue.shift())
  return { ...h, queue }
}

const chunkSizes = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 4 })
const sampleArb = fc.constantFrom(...leaks)

function callFor(sample: CorpusSample) {
  return { name: sample.expect.tools[0]!, arguments: '{"x":1}', id: "call_retry" }
}

/** Visible text of a leak, as the wrapper shows it when the whole text arrives in one chunk (memoized per sample). */
const reference = new Map<string, string>()
async function visibleText(client: OpenAI, queue: ReplayStep[], sample: CorpusSample): Promise<string> {
  const known = reference.get(sample.id)
  if (known !== undefined) return known
  queue.push({ content: sample.text }, { toolCalls: [callFor(sample)] })
  const text = contentOf(
    await collect(
      await client.chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "go" }],
        tools: sample.tools.map(chatTool),
        stream: true,
      }),
    ),
  )
  reference.set(sample.id, text)
  return text
}

/**
 * Chunks without their per-request `id`/`created`, with runs of content-only deltas joined: the
 * wrapper may cut a content delta where the detector briefly holds back a possible marker prefix
 * (a trailing `f` could start `functools[`), and releases the rest in a copy of the same chunk.
 */
function joinContent(chunks: readonly OpenAI.ChatCompletionChunk[]): unknown[] {
  const out: Array<Record<string, unknown>> = []
  for (const { id: _id, created: _created, ...chunk } of chunks) {
    const choice = chunk.choices[0]
    const contentOnly =
      choice !== undefined && Object.keys(choice.delta).join() === "content" && choice.finish_reason === null
    const last = out.at(-1) as (typeof chunk & { joined?: true }) | undefined
    if (contentOnly && last?.joined === true) {
      last.choices[0]!.delta.content += choice.delta.content ?? ""
      continue
    }
    out.push(
      contentOnly ? { ...chunk, choices: [{ ...choice, delta: { ...choice.delta } }], joined: true } : chunk,
    )
  }
  return out
}

/** Text that must pass through as text (prose rich in `<` and backticks, fenced and inline code examples of markup), cut anywhere. */
const cleanDeltas = fc
  .oneof(prose(), fencedExample(), inlineCodeExample())
  .chain((sample) => chunked(sample.text).map((deltas) => ({ text: sample.text, deltas })))

const offered = ["read_file", "run_shell"]

/** A generated leak in any catalogued format that the default policy recovers, cut anywhere. */
const generatedLeak = leakedCall({ tools: offered })
  .filter((sample) => sample.labels.recoverable)
  .chain((sample) => chunked(sample.text).map((deltas) => ({ sample, deltas })))

describe("chat completions, streamed", () => {
  test.prop([sampleArb, chunkSizes, fc.boolean(), fc.boolean()], RUNS)(
    "a leak under any chunking: the same visible text, no markup, one retry with the instruction and without the response",
    async (sample, sizes, withSystem, includeUsage) => {
      const { client, queue, server } = await scripted()
      const visible = await visibleText(client, queue, sample)
      const before = server.requests.length
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        ...(withSystem ? [{ role: "system" as const, content: "Be brief." }] : []),
        { role: "user", content: "go" },
      ]
      queue.push({ content: sample.text, chunkSize: sizes }, { toolCalls: [callFor(sample)] })
      const chunks = await collect(
        await client.chat.completions.create({
          model: "m",
          messages,
          tools: sample.tools.map(chatTool),
          stream: true,
          ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
        }),
      )
      expect(contentOf(chunks)).toBe(visible)
      expect(visible.length).toBeLessThan(sample.text.length)
      expect(
        chunks
          .flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
          .map((d) => d.function?.name ?? "")
          .join(""),
      ).toBe(sample.expect.tools[0])
      expect(new Set(chunks.map((c) => c.id)).size).toBe(1)
      expect(chunks.filter((c) => c.choices[0]?.delta.role !== undefined)).toHaveLength(1)
      expect(chunks.filter((c) => c.choices.length === 0)).toHaveLength(includeUsage ? 1 : 0)

      const sent = server.requests.slice(before)
      expect(sent).toHaveLength(2)
      const retry = sent[1]!.body!.messages!
      // Exactly the original messages, with the instruction merged into (or put first as) the system message.
      expect(retry.slice(1)).toEqual(messages.slice(withSystem ? 1 : 0))
      expect(retry[0]!.role).toBe("system")
      const system = String(retry[0]!.content)
      expect(isRetryRequest(system)).toBe(true)
      // Merged after the original system text, or (there was none) the instruction alone.
      expect(system.startsWith("Be brief.\n\n")).toBe(withSystem)
    },
  )

  test.prop([cleanDeltas, fc.boolean()], RUNS)(
    "text that is not a call passes through: the same chunks, up to where content deltas are cut, and no retry",
    async ({ text, deltas }, includeUsage) => {
      const { client, raw, queue, server } = await scripted()
      const step: ReplayStep = { content: deltas }
      const params = {
        model: "m",
        messages: [{ role: "user" as const, content: "go" }],
        tools: offered.map(chatTool),
        stream: true as const,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      }
      queue.push(step, step)
      const plain = await collect(await raw.chat.completions.create(params))
      const wrapped = await collect(await client.chat.completions.create(params))
      expect(contentOf(wrapped)).toBe(text)
      expect(joinContent(wrapped)).toEqual(joinContent(plain))
      expect(server.requests).toHaveLength(2)
    },
  )

  test.prop([generatedLeak], RUNS)(
    "a generated leak in any format, cut anywhere: the same text, calls and requests as the whole text",
    async ({ sample, deltas }) => {
      const { server, client } = await harness((request) =>
        isRetryRequest(request.body)
          ? { toolCalls: [{ name: sample.labels.tools[0]!, arguments: "{}", id: "call_retry" }] }
          : step,
      )
      let step: ReplayStep = { content: sample.text }
      const params = {
        model: "m",
        messages: [{ role: "user" as const, content: "go" }],
        tools: offered.map(chatTool),
        stream: true as const,
      }
      const whole = await collect(await client.chat.completions.create(params))
      const wholeRequests = server.requests.length
      step = { content: deltas }
      const cut = await collect(await client.chat.completions.create(params))
      expect(contentOf(cut)).toBe(contentOf(whole))
      expect(server.requests.length - wholeRequests).toBe(wholeRequests)
      const names = (chunks: OpenAI.ChatCompletionChunk[]) =>
        chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).flatMap((d) => d.function?.name ?? [])
      expect(names(cut)).toEqual(names(whole))
      if (wholeRequests === 2) expect(names(cut)).toEqual([sample.labels.tools[0]])
    },
  )

  test.prop([sampleArb, chunkSizes], RUNS)(
    "the SDK's ChatCompletionStream accumulates the recovered stream into one completion",
    async (sample, sizes) => {
      const { client, queue } = await scripted()
      const visible = await visibleText(client, queue, sample)
      queue.push(
        { content: sample.text, chunkSize: sizes },
        { content: "Calling it.", toolCalls: [callFor(sample)], chunkSize: sizes },
      )
      const runner = client.chat.completions.stream({
        model: "m",
        messages: [{ role: "user", content: "go" }],
        tools: sample.tools.map(chatTool),
      })
      const final = await runner.finalChatCompletion()
      // The retry's text starts on a new line after shown text that does not end one.
      const owed = visible.length > 0 && !visible.endsWith("\n") ? "\n" : ""
      expect(final.choices[0]!.message.content).toBe(`${visible}${owed}Calling it.`)
      expect(
        final.choices[0]!.message.tool_calls?.map((c) => c.type === "function" && c.function.name),
      ).toEqual([sample.expect.tools[0]])
    },
  )
})

describe("chat completions, not streamed", () => {
  test.prop([sampleArb], { numRuns: 10 })(
    "a leak: only the retry's response, with its call",
    async (sample) => {
      const { client, queue } = await scripted()
      queue.push({ content: sample.text }, { toolCalls: [callFor(sample)] })
      const completion = await client.chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "go" }],
        tools: sample.tools.map(chatTool),
      })
      // Nothing was shown in a non-streaming call: the malformed response is absent, prose included.
      expect(completion.choices[0]!.message.content ?? "").toBe("")
      expect(completion.choices[0]!.message.tool_calls).toHaveLength(1)
    },
  )
})

/**
 * Responses events without sequence numbers and per-request ids, with runs of text deltas of one
 * item joined (the wrapper may cut a delta where a marker prefix is held back, which shifts the
 * sequence numbers after it).
 */
function joinDeltas(events: readonly OpenAI.Responses.ResponseStreamEvent[]): unknown[] {
  const out: Array<Record<string, unknown>> = []
  for (const { sequence_number: _seq, ...event } of events) {
    const last = out.at(-1)
    if (
      event.type === "response.output_text.delta" &&
      last?.type === event.type &&
      last.item_id === event.item_id
    ) {
      last.delta = `${String(last.delta)}${event.delta}`
      continue
    }
    out.push({ ...event })
  }
  return JSON.parse(
    JSON.stringify(out)
      .replaceAll(/_replay_\d+/g, "_replay_n")
      .replaceAll(/"created_at":\d+/g, '"created_at":0'),
  )
}

describe("Responses API, streamed", () => {
  test.prop([cleanDeltas, fc.boolean(), fc.boolean()], RUNS)(
    "text that is not a call passes through: the same events, up to where text deltas are cut",
    async ({ text, deltas }, withReasoning, withCall) => {
      const { client, raw, queue, server } = await scripted()
      const step: ReplayStep = {
        content: deltas,
        ...(withReasoning ? { reasoning: "Think." } : {}),
        ...(withCall ? { toolCalls: [{ name: "read_file", arguments: '{"path":"a"}', id: "call_a" }] } : {}),
      }
      const params = { model: "m", input: "go", tools: offered.map(responsesTool), stream: true as const }
      queue.push(step, step)
      const plain = await collect(await raw.responses.create(params))
      const wrapped = await collect(await client.responses.create(params))
      expect(joinDeltas(wrapped)).toEqual(joinDeltas(plain))
      expect(wrapped.map((e) => (e.type === "response.output_text.delta" ? e.delta : "")).join("")).toBe(text)
      expect(server.requests).toHaveLength(2)
    },
  )

  test.prop([sampleArb, chunkSizes, fc.boolean()], RUNS)(
    "a leak under any chunking: one response the SDK's ResponseStream accepts, with the visible text and the call",
    async (sample, sizes, withReasoning) => {
      const { client, queue } = await scripted()
      const visible = await visibleText(client, queue, sample)
      queue.push(
        { content: sample.text, chunkSize: sizes, ...(withReasoning ? { reasoning: "Think first." } : {}) },
        { toolCalls: [callFor(sample)], ...(withReasoning ? { reasoning: "Now call." } : {}) },
      )
      const runner = client.responses.stream({
        model: "m",
        input: "go",
        tools: sample.tools.map(responsesTool),
      })
      const events: OpenAI.Responses.ResponseStreamEvent[] = []
      runner.on("event", (event) => events.push(event))
      const final = await runner.finalResponse()

      expect(final.output_text).toBe(visible)
      expect(final.output.at(-1)).toMatchObject({ type: "function_call", name: sample.expect.tools[0] })
      const sequence = events.map((e) => e.sequence_number)
      for (let i = 1; i < sequence.length; i++) expect(sequence[i]).toBeGreaterThan(sequence[i - 1]!)
      const added = events.flatMap((e) => (e.type === "response.output_item.added" ? [e.output_index] : []))
      expect(new Set(added).size).toBe(added.length)
      const ids = events.flatMap((e) => ("response" in e ? [e.response.id] : []))
      expect(new Set(ids).size).toBe(1)
    },
  )
})
