/**
 * Test harness: a replay server and the real `ChatOpenAI` pointed at it (`configuration.baseURL`),
 * plain and wrapped by `withToolCallRecovery`. Everything goes over real HTTP on 127.0.0.1.
 */
import { ChatOpenAI } from "@langchain/openai"
import type { RecoveryEvent } from "@tool-rescue/recovery"
import { type ReplayScript, type ReplayServer, startReplayServer } from "@tool-rescue/testing"
import { type CorpusSample, corpus } from "@tool-rescue/testing/corpus"
import { afterEach } from "vitest"
import { type ToolCallRecoveryOptions, withToolCallRecovery } from "../../src/index.ts"

const servers: ReplayServer[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

export interface Harness {
  readonly server: ReplayServer
  /** The unwrapped model. */
  readonly raw: ChatOpenAI
  /** The wrapped model. */
  readonly model: ChatOpenAI
  /** Every event the wrapper reported. */
  readonly events: RecoveryEvent[]
}

/** Starts a replay server for `script` and returns a model pointed at it. */
export async function replay(script: ReplayScript): Promise<ReplayServer> {
  const server = await startReplayServer({ script })
  servers.push(server)
  return server
}

/** A `ChatOpenAI` on the replay server: no retries of its own, usage streamed. */
export function chatOpenAI(
  server: ReplayServer,
  fields: ConstructorParameters<typeof ChatOpenAI>[0] = {},
): ChatOpenAI {
  return new ChatOpenAI({
    model: "qwen3-coder",
    apiKey: "test",
    maxRetries: 0,
    configuration: { baseURL: server.url },
    ...(typeof fields === "object" ? fields : {}),
  })
}

/** Starts a server for `script` and returns both models. The server is closed after the test. */
export async function harness(
  script: ReplayScript,
  options: ToolCallRecoveryOptions = {},
  fields: ConstructorParameters<typeof ChatOpenAI>[0] = {},
): Promise<Harness> {
  const server = await replay(script)
  const events: RecoveryEvent[] = []
  const raw = chatOpenAI(server, fields)
  const model = withToolCallRecovery(raw, {
    ...options,
    onEvent: (event) => {
      events.push(event)
      options.onEvent?.(event)
    },
  })
  return { server, raw, model, events }
}

/** An OpenAI-format function tool with free-form arguments. */
export function functionTool(name: string): {
  type: "function"
  function: { name: string; description: string; parameters: Record<string, unknown> }
} {
  return {
    type: "function" as const,
    function: {
      name: name,
      description: name,
      parameters: { type: "object", properties: {}, additionalProperties: true },
    },
  }
}

/** A real leak by id. */
export function leak(id: string): CorpusSample {
  const sample = corpus.find((s) => s.id === id)
  if (sample === undefined) throw new Error(`no corpus sample ${id}`)
  return sample
}

/** Reads a stream to the end. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of stream) items.push(item)
  return items
}

/** Everything a recorded request sent, as one string (to assert what was, or was not, sent). */
export function sentText(body: unknown): string {
  return JSON.stringify(body)
}
