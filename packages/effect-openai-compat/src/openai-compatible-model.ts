import { isRecord, type JsonObject } from "@tool-rescue/wire"
import { Effect, Layer, type Redacted, Stream } from "effect"
import { AiError, LanguageModel, type Response } from "effect/ai"
import { Sse } from "effect/encoding"
import {
  FetchHttpClient,
  HttpClient,
  type HttpClientError,
  HttpClientRequest,
  type HttpClientResponse,
} from "effect/http"
import { chatBody } from "./chat-body.ts"
import { createChunkReader } from "./chunk-reader.ts"
import { completionParts } from "./completion-parts.ts"
import {
  aiError,
  clientReason,
  cutShortReason,
  invalidResponseReason,
  statusReason,
  streamedErrorReason,
} from "./provider-error.ts"

/**
 * Options of {@link openAiCompatibleModel} and {@link make}.
 *
 * @example
 * ```ts
 * import type { OpenAiCompatibleModelOptions } from "@tool-rescue/effect-openai-compat"
 *
 * const options: OpenAiCompatibleModelOptions = {
 *   baseURL: "http://127.0.0.1:8000/v1",
 *   model: "qwen3-coder",
 *   headers: { "x-team": "tools" },
 * }
 * ```
 */
export interface OpenAiCompatibleModelOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:8000/v1` (requests go to `${baseURL}/chat/completions`). */
  readonly baseURL: string
  /** The `model` of every request. */
  readonly model: string
  /** Sent as `Authorization: Bearer …` when given; a `Redacted` keeps it out of logs. */
  readonly apiKey?: string | Redacted.Redacted<string> | undefined
  /** Extra headers on every request (an `authorization` here wins over `apiKey`). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The `LanguageModel` service for an OpenAI-compatible Chat Completions API, over the
 * `HttpClient` of the context (use it to bring your own client: proxies, timeouts, tracing).
 * {@link openAiCompatibleModel} is the layer over `fetch`.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { FetchHttpClient } from "effect/http"
 * import { make } from "@tool-rescue/effect-openai-compat"
 *
 * const Model = Layer.effect(
 *   LanguageModel.LanguageModel,
 *   make({ baseURL: "http://127.0.0.1:8000/v1", model: "qwen3-coder" }),
 * ).pipe(Layer.provide(FetchHttpClient.layer))
 * ```
 */
export function make(
  options: OpenAiCompatibleModelOptions,
): Effect.Effect<LanguageModel.LanguageModel, never, HttpClient.HttpClient> {
  const url = `${options.baseURL.replace(/\/+$/, "")}/chat/completions`
  return Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const request = (provider: LanguageModel.ProviderOptions, stream: boolean) => {
      let req = HttpClientRequest.post(url).pipe(
        HttpClientRequest.bodyJsonUnsafe(chatBody(options.model, provider, stream)),
      )
      if (options.apiKey !== undefined) req = HttpClientRequest.bearerToken(req, options.apiKey)
      return options.headers === undefined ? req : HttpClientRequest.setHeaders(req, options.headers)
    }
    /** Sends `req`; an error status fails with its `AiError`, read from the body the server sent. */
    const send = (method: string, req: HttpClientRequest.HttpClientRequest) =>
      client.execute(req).pipe(
        Effect.mapError((error) => aiError(method, clientReason(error, req))),
        Effect.flatMap((response) =>
          response.status < 400
            ? Effect.succeed(response)
            : Effect.flatMap(
                Effect.orElseSucceed(response.text, () => ""),
                (body) => Effect.fail(aiError(method, statusReason(req, response, body))),
              ),
        ),
      )
    return yield* LanguageModel.make({
      generateText: (provider) => {
        const req = request(provider, false)
        return send("generateText", req).pipe(
          Effect.flatMap((response) =>
            Effect.mapError(response.text, (error) => aiError("generateText", clientReason(error, req))),
          ),
          Effect.flatMap((text) => {
            const parts = completionParts(parseJson(text))
            return parts === undefined
              ? Effect.fail(
                  aiError(
                    "generateText",
                    invalidResponseReason(`not a chat completion: ${text.slice(0, 200)}`),
                  ),
                )
              : Effect.succeed(parts)
          }),
        )
      },
      streamText: (provider) => {
        const req = request(provider, true)
        return Stream.unwrap(Effect.map(send("streamText", req), (response) => events(response, req)))
      },
    })
  })
}

/**
 * A `LanguageModel` layer for an OpenAI-compatible Chat Completions API (vLLM, llama.cpp,
 * Ollama, LM Studio, OpenAI…) over `fetch`. Streaming, tool calls, usage and reasoning fields;
 * every failure is an `AiError` whose `isRetryable` says whether to try again.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { openAiCompatibleModel } from "@tool-rescue/effect-openai-compat"
 *
 * const Model = openAiCompatibleModel({ baseURL: "http://127.0.0.1:8000/v1", model: "qwen3-coder" })
 * const answer = LanguageModel.generateText({ prompt: "Hi" }).pipe(Effect.provide(Model))
 * ```
 */
export function openAiCompatibleModel(
  options: OpenAiCompatibleModelOptions,
): Layer.Layer<LanguageModel.LanguageModel> {
  return Layer.effect(LanguageModel.LanguageModel, make(options)).pipe(Layer.provide(FetchHttpClient.layer))
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The SSE events of a streamed completion, read to `data: [DONE]`, as Effect's stream parts. */
function events(
  response: HttpClientResponse.HttpClientResponse,
  req: HttpClientRequest.HttpClientRequest,
): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> {
  const reader = createChunkReader()
  const fail = (reason: AiError.AiErrorReason) => Effect.fail(aiError("streamText", reason))
  // `done` is set when `[DONE]` arrives: a body that ends before it was cut short.
  let done = false
  return response.stream.pipe(
    Stream.mapError((error: HttpClientError.HttpClientError) =>
      aiError("streamText", clientReason(error, req)),
    ),
    Stream.decodeText(),
    Stream.pipeThroughChannel(Sse.decode()),
    Stream.mapError((error) =>
      AiError.isAiError(error)
        ? error
        : aiError(
            "streamText",
            // A `retry:` field asks the client to reconnect: the answer is cut short here.
            error._tag === "Retry" ? cutShortReason(req) : invalidResponseReason(error.message),
          ),
    ),
    Stream.takeWhile((event) => {
      done = event.data === "[DONE]"
      return !done
    }),
    Stream.mapEffect((event) => {
      const chunk = parseJson(event.data)
      if (!isRecord(chunk))
        return fail(invalidResponseReason(`malformed SSE data: ${event.data.slice(0, 200)}`))
      if (chunk.error != null) return fail(streamedErrorReason(chunk.error))
      return Effect.succeed(reader.read(chunk as JsonObject))
    }),
    Stream.concat(
      Stream.suspend(() =>
        done ? Stream.succeed(reader.end()) : Stream.fromEffect(fail(cutShortReason(req))),
      ),
    ),
    Stream.flattenIterable,
  )
}
