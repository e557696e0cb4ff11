/**
 * A small OpenAI-compatible `LanguageModel` for Effect 4 (`effect/ai`), built with Effect's own
 * `LanguageModel.make` over `fetch` and server-sent events. The demo needs one because no Effect
 * 4.1 provider package speaks to a plain OpenAI-compatible server (`@effect/ai-openai-compat`
 * 4.0 betas import `effect/unstable/*`, which 4.1 no longer has). It covers what the demo uses —
 * text, function tools, tool results, streaming and not — and nothing more.
 */
import { Effect, Layer, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response, Tool } from "effect/ai"
import { addToolCallDelta, type ToolCallDraft } from "./add-tool-call-delta.ts"

/** Options of {@link openAiCompatibleModel}. */
export interface OpenAiCompatibleModelOptions {
  /** e.g. `http://127.0.0.1:8000/v1` */
  readonly baseURL: string
  readonly model: string
  readonly apiKey?: string
}

type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string }

interface ChatToolCall {
  id: string
  type: "function"
  function: { name: string; arguments: string }
}

const MODULE = "OpenAiCompatibleDemo"

function fail(method: string, description: string, cause?: unknown): AiError.AiError {
  return AiError.make({
    module: MODULE,
    method,
    reason: new AiError.UnknownError({
      description: cause === undefined ? description : `${description}: ${String(cause)}`,
    }),
  })
}

/** `Prompt` messages → Chat Completions messages. */
function toMessages(prompt: Prompt.Prompt): ChatMessage[] {
  const messages: ChatMessage[] = []
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        messages.push({ role: "system", content: message.content })
        break
      case "user":
        messages.push({
          role: "user",
          content: message.content.map((part) => (part.type === "text" ? part.text : "")).join(""),
        })
        break
      case "assistant": {
        const text: string[] = []
        const calls: ChatToolCall[] = []
        for (const part of message.content) {
          if (part.type === "text") text.push(part.text)
          else if (part.type === "tool-call") {
            calls.push({
              id: part.id,
              type: "function",
              function: { name: part.name, arguments: JSON.stringify(part.params) },
            })
          }
        }
        messages.push({
          role: "assistant",
          content: text.length > 0 ? text.join("") : null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        })
        break
      }
      case "tool":
        for (const part of message.content) {
          if (part.type !== "tool-result") continue
          const content = typeof part.result === "string" ? part.result : JSON.stringify(part.result)
          messages.push({ role: "tool", tool_call_id: part.id, content })
        }
        break
      default:
        message satisfies never
    }
  }
  return messages
}

function requestBody(options: LanguageModel.ProviderOptions, model: string, stream: boolean): string {
  const tools = options.tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: Tool.getDescription(tool),
      parameters: Tool.getJsonSchema(tool),
    },
  }))
  return JSON.stringify({
    model,
    messages: toMessages(options.prompt),
    ...(tools.length > 0 ? { tools } : {}),
    stream,
  })
}

const finishReasons: Readonly<Record<string, Response.FinishReason>> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool-calls",
  content_filter: "content-filter",
}

function usageOf(usage: unknown): { inputTokens: { total?: number }; outputTokens: { total?: number } } {
  const u = typeof usage === "object" && usage !== null ? (usage as Record<string, unknown>) : {}
  const input = typeof u.prompt_tokens === "number" ? u.prompt_tokens : undefined
  const output = typeof u.completion_tokens === "number" ? u.completion_tokens : undefined
  return {
    inputTokens: input === undefined ? {} : { total: input },
    outputTokens: output === undefined ? {} : { total: output },
  }
}

async function post(
  options: OpenAiCompatibleModelOptions,
  body: string,
  signal: AbortSignal,
): Promise<Response_> {
  const response = await fetch(`${options.baseURL.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${options.apiKey ?? "demo"}` },
    body,
    signal,
  })
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 200)}`)
  return response
}

type Response_ = globalThis.Response

/** Server-sent events of a response body: each `data:` payload, until `[DONE]`. */
async function* sseData(response: Response_): AsyncGenerator<string, void, undefined> {
  if (response.body === null) return
  const decoder = new TextDecoder()
  let buffer = ""
  let data: string[] = []
  for await (const bytes of response.body) {
    buffer += decoder.decode(bytes, { stream: true })
    for (;;) {
      const at = buffer.indexOf("\n")
      if (at === -1) break
      const line = buffer.slice(0, at).replace(/\r$/, "")
      buffer = buffer.slice(at + 1)
      if (line === "") {
        if (data.length > 0) {
          const payload = data.join("\n")
          data = []
          if (payload === "[DONE]") return
          yield payload
        }
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line.startsWith("data: ") ? 6 : 5))
      }
    }
  }
}

/** Chat completion chunks → Effect stream parts. */
async function* streamParts(
  options: OpenAiCompatibleModelOptions,
  body: string,
  signal: AbortSignal,
): AsyncGenerator<Response.StreamPartEncoded, void, undefined> {
  const response = await post(options, body, signal)
  let textId: string | undefined
  let texts = 0
  const calls = new Map<number, ToolCallDraft>()
  let finish: string | undefined
  let usage: unknown
  for await (const payload of sseData(response)) {
    const chunk = JSON.parse(payload) as {
      choices?: {
        delta?: {
          content?: string | null
          tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[]
        }
        finish_reason?: string | null
      }[]
      usage?: unknown
    }
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage
    const choice = chunk.choices?.[0]
    if (choice === undefined) continue
    const content = choice.delta?.content
    if (typeof content === "string" && content.length > 0) {
      if (textId === undefined) {
        textId = `text_${texts++}`
        yield { type: "text-start", id: textId }
      }
      yield { type: "text-delta", id: textId, delta: content }
    }
    for (const call of choice.delta?.tool_calls ?? []) addToolCallDelta(calls, call)
    if (choice.finish_reason) finish = choice.finish_reason
  }
  if (textId !== undefined) yield { type: "text-end", id: textId }
  for (const call of calls.values()) {
    const args = call.args.join("")
    yield {
      type: "tool-call",
      id: call.id,
      name: call.name,
      params: args.length === 0 ? {} : JSON.parse(args),
    }
  }
  yield { type: "finish", reason: finishReasons[finish ?? "stop"] ?? "other", usage: usageOf(usage) }
}

/**
 * A `LanguageModel` layer that talks to an OpenAI-compatible `/chat/completions` endpoint.
 *
 * @example
 * ```ts
 * const Model = openAiCompatibleModel({ baseURL: server.url, model: "replay-model" })
 * ```
 */
export function openAiCompatibleModel(
  options: OpenAiCompatibleModelOptions,
): Layer.Layer<LanguageModel.LanguageModel> {
  return Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      streamText: (provider) =>
        Stream.suspend(() => {
          const controller = new AbortController()
          const body = requestBody(provider, options.model, true)
          return Stream.fromAsyncIterable(streamParts(options, body, controller.signal), (cause) =>
            fail("streamText", "the chat completions stream failed", cause),
          ).pipe(Stream.ensuring(Effect.sync(() => controller.abort())))
        }),
      generateText: (provider) =>
        Effect.tryPromise({
          try: async (signal) => {
            const parts: Response.PartEncoded[] = []
            const text: string[] = []
            let finish: Response.StreamPartEncoded | undefined
            for await (const part of streamParts(
              options,
              requestBody(provider, options.model, true),
              signal,
            )) {
              if (part.type === "text-delta") text.push(part.delta)
              else if (part.type === "tool-call") parts.push(part)
              else if (part.type === "finish") finish = part
            }
            if (text.length > 0) parts.unshift({ type: "text", text: text.join("") })
            if (finish !== undefined && finish.type === "finish") parts.push(finish)
            return parts
          },
          catch: (cause) => fail("generateText", "the chat completion failed", cause),
        }),
    }),
  )
}
