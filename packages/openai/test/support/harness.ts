/**
 * Test harness: a replay server, the real `openai` client pointed at it, and the same client
 * wrapped by `withToolCallRecovery`. Everything goes over real HTTP on 127.0.0.1.
 */
import type { RecoveryEvent } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { type ReplayScript, type ReplayServer, startReplayServer } from "@tool-rescue/testing"
import { type CorpusSample, corpus } from "@tool-rescue/testing/corpus"
import OpenAI from "openai"
import { afterEach, expect } from "vitest"
import { type ToolCallRecoveryOptions, withToolCallRecovery } from "../../src/index.ts"

const servers: ReplayServer[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

export interface Harness {
  readonly server: ReplayServer
  /** The unwrapped client. */
  readonly raw: OpenAI
  /** The wrapped client. */
  readonly client: OpenAI
  /** Every event the wrapper reported. */
  readonly events: RecoveryEvent[]
}

/** Starts a server for `script` and returns both clients. The server is closed after the test. */
export async function harness(
  script: ReplayScript,
  options: Omit<ToolCallRecoveryOptions, "unknownToolCalls"> = {},
): Promise<Harness> {
  const server = await startReplayServer({ script })
  servers.push(server)
  const events: RecoveryEvent[] = []
  const raw = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 })
  const client = withToolCallRecovery(raw, {
    ...options,
    onEvent: (event) => {
      events.push(event)
      options.onEvent?.(event)
    },
  })
  return { server, raw, client, events }
}

/** A function tool definition for chat completions. */
export function chatTool(name: string): OpenAI.ChatCompletionFunctionTool {
  return {
    type: "function",
    function: { name, parameters: { type: "object", properties: {}, additionalProperties: true } },
  }
}

/** A function tool definition for the Responses API. */
export function responsesTool(name: string): OpenAI.Responses.FunctionTool {
  return { type: "function", name, parameters: { type: "object", properties: {} }, strict: false }
}

/** Real leaks from the labelled corpus that the default policy recovers. */
export const leaks: readonly CorpusSample[] = corpus.filter(
  (sample) => sample.scope === "core" && sample.expect.leak,
)

/** A real leak by id. */
export function leak(id: string): CorpusSample {
  const sample = corpus.find((s) => s.id === id)
  if (sample === undefined) throw new Error(`no corpus sample ${id}`)
  return sample
}

/** The leaked call's arguments as the structured retry sends them. */
export const RETRY_ARGUMENTS = '{"pattern":"*.md"}'

/** Reads a stream to the end. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of stream) items.push(item)
  return items
}

/** Concatenated content deltas of chat chunks. */
export function contentOf(chunks: readonly OpenAI.ChatCompletionChunk[]): string {
  return chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")
}

/**
 * Matches the text of a retry's instruction (a string that carries the retry mark,
 * `isRetryRequest`), as an asymmetric matcher inside `toEqual`.
 */
export function instructionText(): unknown {
  return expect.toSatisfy(
    (text: unknown) => typeof text === "string" && isRetryRequest(text),
    "a retry instruction",
  )
}

/** Every message text of a recorded chat request, as one string (to assert what was sent). */
export function sentText(body: unknown): string {
  return JSON.stringify(body)
}
