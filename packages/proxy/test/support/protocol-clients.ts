/**
 * The three recovered protocols as a table of real clients: the `openai` client for Chat
 * Completions and Responses, `@anthropic-ai/sdk` for Anthropic Messages — so one fault test
 * runs against each protocol through the client its users run.
 */
import Anthropic from "@anthropic-ai/sdk"
import OpenAI from "openai"
import type { ProtocolName } from "../../src/index.ts"
import { type Harness, READ_FILE_TOOL } from "./harness.ts"

/** How a client reported a failure: the HTTP status (undefined for a stream's error event) and the error's code. */
export interface ClientFailure {
  readonly status: number | undefined
  readonly code: unknown
  /** The client's error is its API error class (not a connection error). */
  readonly api: boolean
}

export interface ProtocolClient {
  readonly name: ProtocolName
  /** The path under the proxy's `/v1` base URL. */
  readonly path: string
  /** A request offering `read_file` (QWEN_LEAK's tool), not streamed. */
  readonly body: Readonly<Record<string, unknown>>
  /** A non-streaming call through the real client. */
  create(h: Harness): Promise<unknown>
  /** A streaming call through the real client, drained: the text it showed. */
  stream(h: Harness, shown?: (text: string) => void): Promise<string>
}

const openai = (h: Harness) => new OpenAI({ baseURL: h.proxy.url, apiKey: "sk-test", maxRetries: 0 })
/** The Anthropic SDK adds `/v1` itself (Claude Code's `ANTHROPIC_BASE_URL` is the origin). */
const anthropic = (h: Harness) =>
  new Anthropic({ baseURL: h.proxy.url.replace(/\/v1$/, ""), apiKey: "sk-ant-test", maxRetries: 0 })

const chatBody = {
  model: "m",
  messages: [{ role: "user" as const, content: "Show me a.ts" }],
  tools: [READ_FILE_TOOL],
}
const responsesBody = {
  model: "m",
  input: "Show me a.ts",
  tools: [{ type: "function" as const, name: "read_file", parameters: { type: "object" }, strict: false }],
}
const messagesBody = {
  model: "m",
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: "Show me a.ts" }],
  tools: [{ name: "read_file", input_schema: { type: "object" as const, properties: {} } }],
}

/** Drains a client's stream: the text its events carry, shown after each event as it grows. */
async function drained<E>(
  events: AsyncIterable<E>,
  textOf: (event: E) => string,
  shown?: (text: string) => void,
): Promise<string> {
  let text = ""
  for await (const event of events) {
    text += textOf(event)
    shown?.(text)
  }
  return text
}

export const protocolClients: readonly ProtocolClient[] = [
  {
    name: "chat",
    path: "/chat/completions",
    body: chatBody,
    create: (h) => openai(h).chat.completions.create(chatBody),
    stream: async (h, shown) =>
      drained(
        await openai(h).chat.completions.create({ ...chatBody, stream: true }),
        (chunk) => chunk.choices[0]?.delta.content ?? "",
        shown,
      ),
  },
  {
    name: "responses",
    path: "/responses",
    body: responsesBody,
    create: (h) => openai(h).responses.create(responsesBody),
    stream: async (h, shown) =>
      drained(
        await openai(h).responses.create({ ...responsesBody, stream: true }),
        (event) => (event.type === "response.output_text.delta" ? event.delta : ""),
        shown,
      ),
  },
  {
    name: "messages",
    path: "/messages",
    body: messagesBody,
    create: (h) => anthropic(h).messages.create(messagesBody),
    stream: async (h, shown) =>
      drained(
        await anthropic(h).messages.create({ ...messagesBody, stream: true }),
        (event) =>
          event.type === "content_block_delta" && event.delta.type === "text_delta" ? event.delta.text : "",
        shown,
      ),
  },
]

/** The failure `promise` rejects with, as its client reported it; throws if it resolves. */
export async function failureOf(promise: Promise<unknown>): Promise<ClientFailure> {
  try {
    await promise
  } catch (error) {
    if (error instanceof OpenAI.APIConnectionError || error instanceof Anthropic.APIConnectionError)
      return { status: undefined, code: undefined, api: false }
    if (error instanceof OpenAI.APIError) return { status: error.status, code: error.code, api: true }
    if (error instanceof Anthropic.APIError) {
      const body = error.error as { error?: { code?: unknown } } | undefined
      return { status: error.status, code: body?.error?.code, api: true }
    }
    return { status: undefined, code: undefined, api: false }
  }
  throw new Error("expected the call to fail")
}
