/**
 * A small OpenAI-compatible Chat Completions provider for Effect AI 4.1 (`effect/ai`), built on
 * Effect's own `LanguageModel.make`, HTTP client (`effect/http`) and SSE decoder
 * (`effect/encoding`). It is the provider of the tool-rescue tests and of the CLI demo, against
 * the replay server (or any OpenAI-compatible server: vLLM, llama.cpp, Ollama, …).
 *
 * Why its own: no published Effect provider package loads with effect 4.1 — the newest
 * `@effect/ai-openai` (4.0.0-beta.106) and `@effect/ai-openai-compat` (4.0.0-beta.98) import
 * `effect/unstable/*` paths that effect 4.1 no longer exports. It covers what the tests and the
 * demo need: system, user, assistant (text, tool calls) and tool messages; function tools and
 * `tool_choice`; JSON and SSE responses with text, reasoning (`reasoning_content` or
 * `reasoning`), tool calls, finish reason and usage. Tool-call arguments that are not valid JSON
 * are passed on as the raw text (so unknown-call handling sees them unchanged). HTTP errors, an
 * `{"error": …}` event, malformed SSE JSON and a stream cut before `[DONE]` fail the request with
 * an `AiError`.
 */
import { Effect, Layer, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response, Tool } from "effect/ai"
import { Sse } from "effect/encoding"
import { FetchHttpClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"

type Json = Record<string, unknown>

/**
 * Options of {@link openAiCompatibleModel}.
 *
 * @example
 * ```ts
 * import type { OpenAiCompatibleModelOptions } from "@tool-rescue/testing/effect"
 *
 * const options: OpenAiCompatibleModelOptions = { baseURL: "http://127.0.0.1:8000/v1", model: "qwen3-coder" }
 * ```
 */
export interface OpenAiCompatibleModelOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:8000/v1` (requests go to `${baseURL}/chat/completions`). */
  readonly baseURL: string
  readonly model: string
  /** Sent as `Authorization: Bearer …` when given. */
  readonly apiKey?: string | undefined
}

/**
 * An Effect `LanguageModel` layer that talks to an OpenAI-compatible Chat Completions API over
 * `fetch` (Effect's `FetchHttpClient`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { openAiCompatibleModel } from "@tool-rescue/testing/effect"
 *
 * const Model = openAiCompatibleModel({ baseURL: "http://127.0.0.1:8000/v1", model: "qwen3-coder" })
 * const answer = LanguageModel.generateText({ prompt: "Hi" }).pipe(Effect.provide(Model))
 * ```
 */
export function openAiCompatibleModel(
  options: OpenAiCompatibleModelOptions,
): Layer.Layer<LanguageModel.LanguageModel> {
  return Layer.effect(
    LanguageModel.LanguageModel,
    Effect.gen(function* () {
      const client = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)
      const send = (provider: LanguageModel.ProviderOptions, stream: boolean) => {
        const request = HttpClientRequest.post(`${options.baseURL}/chat/completions`).pipe(
          HttpClientRequest.bodyJsonUnsafe(requestBody(options.model, provider, stream)),
        )
        return client.execute(
          options.apiKey === undefined ? request : HttpClientRequest.bearerToken(request, options.apiKey),
        )
      }
      return yield* LanguageModel.make({
        generateText: (provider) =>
          send(provider, false).pipe(
            Effect.flatMap((response) => response.json),
            Effect.map((body) => completionParts(body as Json)),
            Effect.mapError(providerError("generateText")),
          ),
        streamText: (provider) =>
          Stream.unwrap(
            Effect.map(send(provider, true), (response: HttpClientResponse.HttpClientResponse) => {
              // A stream that ends without `[DONE]` was cut: a provider error, not an answer.
              let done = false
              const chunks = response.stream.pipe(
                Stream.decodeText(),
                Stream.pipeThroughChannel(Sse.decode()),
                Stream.takeWhile((event) => {
                  done = event.data === "[DONE]"
                  return !done
                }),
                Stream.mapEffect((event) => parseChunk(event.data)),
              )
              return chunkParts(chunks, () => done)
            }),
          ).pipe(Stream.mapError(providerError("streamText"))),
      })
    }),
  ).pipe(Layer.provide(FetchHttpClient.layer))
}

const MODULE = "OpenAiCompatibleModel"

const providerError = (method: string) => (error: unknown) =>
  AiError.isAiError(error)
    ? error
    : AiError.make({
        module: MODULE,
        method,
        reason: new AiError.UnknownError({
          description: error instanceof Error ? error.message : String(error),
        }),
      })

/** One SSE event's JSON; malformed JSON or an `{"error": …}` event fails the stream. */
const parseChunk = (data: string): Effect.Effect<Json, AiError.AiError> =>
  Effect.try({
    try: () => JSON.parse(data) as Json,
    catch: () => providerError("streamText")(new Error(`malformed SSE data: ${data.slice(0, 80)}`)),
  }).pipe(
    Effect.flatMap((chunk) =>
      chunk.error === undefined || chunk.error === null
        ? Effect.succeed(chunk)
        : Effect.fail(
            providerError("streamText")(new Error(`provider error: ${JSON.stringify(chunk.error)}`)),
          ),
    ),
  )

function requestBody(model: string, provider: LanguageModel.ProviderOptions, stream: boolean): Json {
  const body: Json = { model, messages: provider.prompt.content.flatMap(message), stream }
  if (stream) body.stream_options = { include_usage: true }
  if (provider.tools.length > 0) {
    body.tools = provider.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: Tool.getDescription(tool),
        parameters: Tool.getJsonSchema(tool),
      },
    }))
    const choice = provider.toolChoice
    body.tool_choice =
      typeof choice === "string"
        ? choice
        : "tool" in choice
          ? { type: "function", function: { name: choice.tool } }
          : (choice.mode ?? "auto")
  }
  return body
}

function message(message: Prompt.Message): Json[] {
  switch (message.role) {
    case "system":
      return [{ role: "system", content: message.content }]
    case "user":
      return [
        {
          role: "user",
          content: message.content.map((part) => (part.type === "text" ? part.text : "")).join(""),
        },
      ]
    case "assistant": {
      const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
      const calls = message.content.flatMap((part) =>
        part.type === "tool-call"
          ? [
              {
                id: part.id,
                type: "function",
                function: {
                  name: part.name,
                  arguments: typeof part.params === "string" ? part.params : JSON.stringify(part.params),
                },
              },
            ]
          : [],
      )
      return [
        {
          role: "assistant",
          content: text.length === 0 ? null : text,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
      ]
    }
    case "tool":
      return message.content.flatMap((part) =>
        part.type === "tool-result"
          ? [
              {
                role: "tool",
                tool_call_id: part.id,
                content: typeof part.result === "string" ? part.result : JSON.stringify(part.result),
              },
            ]
          : [],
      )
    default:
      return message satisfies never
  }
}

const FINISH: Readonly<Record<string, Response.FinishReason>> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool-calls",
  content_filter: "content-filter",
}

function usage(body: Json): Response.FinishPartEncoded["usage"] {
  const u = body.usage as { prompt_tokens?: number; completion_tokens?: number } | null | undefined
  return { inputTokens: { total: u?.prompt_tokens }, outputTokens: { total: u?.completion_tokens } }
}

/** Arguments text as params: parsed JSON, or the raw text when it is not JSON. */
function params(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function completionParts(body: Json): Response.PartEncoded[] {
  const choice = ((body.choices as Json[] | undefined) ?? [])[0] ?? {}
  const msg = (choice.message ?? {}) as Json
  const parts: Response.PartEncoded[] = [
    { type: "response-metadata", id: body.id as string, modelId: body.model as string },
  ]
  const reasoning = (msg.reasoning_content ?? msg.reasoning) as string | undefined
  if (reasoning) parts.push({ type: "reasoning", text: reasoning })
  if (typeof msg.content === "string" && msg.content.length > 0)
    parts.push({ type: "text", text: msg.content })
  for (const call of (msg.tool_calls ?? []) as Array<{
    id: string
    function: { name: string; arguments: string }
  }>) {
    parts.push({
      type: "tool-call",
      id: call.id,
      name: call.function.name,
      params: params(call.function.arguments),
    })
  }
  parts.push({
    type: "finish",
    reason: FINISH[choice.finish_reason as string] ?? "unknown",
    usage: usage(body),
  })
  return parts
}

interface PendingCall {
  id: string
  name: string
  args: string
}

/** SSE chunks → stream parts: text and reasoning blocks as deltas, tool calls when complete. */
function chunkParts(
  chunks: Stream.Stream<Json, unknown>,
  complete: () => boolean,
): Stream.Stream<Response.StreamPartEncoded, unknown> {
  let text = false
  let reasoning = false
  let reason: Response.FinishReason = "unknown"
  let last: Json = {}
  let started = false
  const calls: PendingCall[] = []
  const each = (chunk: Json): Response.StreamPartEncoded[] => {
    const out: Response.StreamPartEncoded[] = []
    if (!started) {
      started = true
      out.push({ type: "response-metadata", id: chunk.id as string, modelId: chunk.model as string })
    }
    last = chunk
    const choice = (chunk.choices as Json[] | undefined)?.[0]
    if (choice === undefined) return out
    const delta = (choice.delta ?? {}) as Json
    const thought = (delta.reasoning_content ?? delta.reasoning) as string | undefined
    if (thought) {
      if (!reasoning) out.push({ type: "reasoning-start", id: "reasoning" })
      reasoning = true
      out.push({ type: "reasoning-delta", id: "reasoning", delta: thought })
    }
    if (typeof delta.content === "string" && delta.content.length > 0) {
      if (reasoning) out.push({ type: "reasoning-end", id: "reasoning" })
      reasoning = false
      if (!text) out.push({ type: "text-start", id: "text" })
      text = true
      out.push({ type: "text-delta", id: "text", delta: delta.content })
    }
    for (const call of (delta.tool_calls ?? []) as Array<{
      index: number
      id?: string
      function?: { name?: string; arguments?: string }
    }>) {
      let pending = calls[call.index]
      if (pending === undefined) {
        pending = { id: call.id ?? `call_${call.index}`, name: "", args: "" }
        calls[call.index] = pending
      }
      if (call.function?.name) pending.name += call.function.name
      if (call.function?.arguments) pending.args += call.function.arguments
    }
    if (typeof choice.finish_reason === "string") reason = FINISH[choice.finish_reason] ?? "unknown"
    return out
  }
  const end = (): Response.StreamPartEncoded[] => {
    const out: Response.StreamPartEncoded[] = []
    if (reasoning) out.push({ type: "reasoning-end", id: "reasoning" })
    if (text) out.push({ type: "text-end", id: "text" })
    for (const call of calls)
      out.push({ type: "tool-call", id: call.id, name: call.name, params: params(call.args) })
    out.push({ type: "finish", reason, usage: usage(last) })
    return out
  }
  return chunks.pipe(
    Stream.map(each),
    Stream.concat(
      Stream.suspend(() =>
        complete() ? Stream.succeed(end()) : Stream.fail(new Error("the stream ended without [DONE]")),
      ),
    ),
    Stream.flattenIterable,
  )
}
