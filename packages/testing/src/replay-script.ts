/**
 * The script format of the replay server: what each request to
 * `POST /v1/chat/completions` or `POST /v1/responses` gets back. One {@link ReplayStep} answers
 * one request; the same step renders as a Chat Completion or a Responses API response (JSON or
 * SSE) depending on the route and the request's `stream` flag.
 */

/**
 * A structured tool call the scripted model makes.
 *
 * @example
 * ```ts
 * import type { ReplayToolCall } from "@tool-rescue/testing"
 *
 * const call: ReplayToolCall = { name: "read_file", arguments: ['{"pa', 'th":"a.ts"}'] }
 * ```
 */
export interface ReplayToolCall {
  /** The function name. */
  readonly name: string
  /**
   * The raw argument text, sent unchanged (usually JSON). An array gives the exact argument
   * deltas of a streamed response; a string is split by the step's `chunkSize`.
   */
  readonly arguments: string | readonly string[]
  /** The call id (`call_id` in the Responses API). @defaultValue `call_<request>_<index>` */
  readonly id?: string
}

/**
 * Token counts reported in `usage`.
 *
 * @example
 * ```ts
 * const step = { content: "ok", usage: { inputTokens: 12, outputTokens: 3 } }
 * ```
 */
export interface ReplayUsage {
  /** `prompt_tokens` / `input_tokens`. */
  readonly inputTokens: number
  /** `completion_tokens` / `output_tokens`. */
  readonly outputTokens: number
  /** `completion_tokens_details.reasoning_tokens` / `output_tokens_details.reasoning_tokens`. @defaultValue 0 */
  readonly reasoningTokens?: number
}

/**
 * The OpenAI error object sent in an error response or a mid-stream error event.
 *
 * @example
 * ```ts
 * const step = { httpError: { status: 400, message: "Bad tool schema", param: "tools" } }
 * ```
 */
export interface ReplayErrorBody {
  /** @defaultValue a message naming the status */
  readonly message?: string
  /** @defaultValue `"server_error"` (5xx), `"invalid_request_error"` (4xx) */
  readonly type?: string
  /** @defaultValue `null` */
  readonly code?: string | null
  /** @defaultValue `null` */
  readonly param?: string | null
}

/**
 * Cuts a response short after some delta chunks.
 *
 * @example
 * ```ts
 * const dropped = { content: "abcdef", chunkSize: 1, interrupt: { kind: "drop", afterChunks: 3 } } as const
 * const stalled = { content: "abcdef", chunkSize: 1, interrupt: { kind: "stall", afterChunks: 2 } } as const
 * ```
 */
export type ReplayInterrupt =
  /**
   * Sends an error event (`data: {"error": …}` in chat, `event: error` in Responses) and ends the
   * stream. A non-streaming request gets an HTTP 500 with the error JSON instead.
   */
  | { readonly kind: "error"; readonly afterChunks: number; readonly error?: ReplayErrorBody }
  /** Destroys the socket (no terminating chunk, no `[DONE]`). A non-streaming request gets no response at all. */
  | { readonly kind: "drop"; readonly afterChunks: number }
  /**
   * Stops sending and holds the connection open, silent, until the client goes away or the
   * server closes: an upstream that stalls mid-body. A non-streaming request gets its headers
   * and the first half of its JSON body, then nothing (`afterChunks` does not apply).
   */
  | { readonly kind: "stall"; readonly afterChunks: number }
  /**
   * Ends the response cleanly, as if it were complete, with no terminating chunk (no
   * `finish_reason`, no `[DONE]`, no `response.completed`, no `message_stop`): a server or proxy
   * that closes early without an error. A non-streaming request gets its JSON body cut in half.
   */
  | { readonly kind: "end"; readonly afterChunks: number }
  /**
   * Sends the whole stream, its end event included, then holds the connection open, silent,
   * until the client goes away or the server closes: a server that never ends a finished
   * response. A non-streaming request is answered whole.
   */
  | { readonly kind: "hold" }

/**
 * `finish_reason` of a chat completion; `"length"` makes a Responses response `incomplete`.
 *
 * @example
 * ```ts
 * const cut = { content: "…", finishReason: "length" } as const
 * ```
 */
export type ReplayFinishReason = "stop" | "length" | "tool_calls" | "content_filter"

/**
 * A scripted model response. Every field is optional: `{}` is an empty answer.
 *
 * @example
 * ```ts
 * import type { ReplayReply } from "@tool-rescue/testing"
 *
 * const leak: ReplayReply = {
 *   reasoning: "The user wants a.ts.",
 *   content: "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>",
 *   chunkSize: [1, 4],
 *   chunkDelayMs: 5,
 * }
 * ```
 */
export interface ReplayReply {
  /**
   * The visible text (`content` / an `output_text` part). An array gives the exact deltas of a
   * streamed response (empty strings are sent as empty deltas); a string is split by `chunkSize`.
   */
  readonly content?: string | readonly string[]
  /**
   * Reasoning text: `reasoning_content` (or `reasoning`, see `reasoningField`) in chat deltas and
   * messages, a `reasoning` output item with a `reasoning_text` part in the Responses API.
   * Streamed before the content.
   */
  readonly reasoning?: string | readonly string[]
  /** Chat only: the field that carries reasoning. @defaultValue `"reasoning_content"` */
  readonly reasoningField?: "reasoning_content" | "reasoning"
  /** Structured tool calls, streamed after the content. */
  readonly toolCalls?: readonly ReplayToolCall[]
  /**
   * UTF-16 code units per streamed delta for string `content`, `reasoning` and `arguments`; an
   * array is cycled (`[1, 3]` gives 1, 3, 1, 3, …). Splits may fall inside a surrogate pair: the
   * halves travel as JSON `\uXXXX` escapes and concatenate back to the original text.
   * @defaultValue the whole string in one delta
   */
  readonly chunkSize?: number | readonly number[]
  /** Milliseconds to wait before each delta chunk of a streamed response. @defaultValue 0 */
  readonly chunkDelayMs?: number
  /** Milliseconds to wait before the response headers. @defaultValue 0 */
  readonly latencyMs?: number
  /** @defaultValue `"tool_calls"` when `toolCalls` is non-empty, else `"stop"` */
  readonly finishReason?: ReplayFinishReason
  /** @defaultValue estimated from the text lengths (4 characters a token) */
  readonly usage?: ReplayUsage
  /** Cut the response short: a mid-stream error, a dropped connection or a stall. */
  readonly interrupt?: ReplayInterrupt
  /** Extra response headers. */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * A scripted HTTP error: the status and an OpenAI-style error JSON body.
 *
 * @example
 * ```ts
 * import type { ReplayHttpError } from "@tool-rescue/testing"
 *
 * const limited: ReplayHttpError = { httpError: { status: 429, message: "Slow down", headers: { "retry-after": "0" } } }
 * ```
 */
export interface ReplayHttpError {
  readonly httpError: ReplayErrorBody & {
    /** The HTTP status, e.g. 429 or 503. */
    readonly status: number
    /** Extra response headers, e.g. `{ "retry-after": "0" }`. */
    readonly headers?: Readonly<Record<string, string>>
  }
  /** Milliseconds to wait before responding. @defaultValue 0 */
  readonly latencyMs?: number
}

/**
 * The answer to one request: a reply or an HTTP error.
 *
 * @example
 * ```ts
 * import type { ReplayStep } from "@tool-rescue/testing"
 *
 * const steps: ReplayStep[] = [{ httpError: { status: 503 } }, { content: "Hello" }]
 * ```
 */
export type ReplayStep = ReplayReply | ReplayHttpError

/**
 * The API a request was addressed to.
 *
 * @example
 * ```ts
 * import type { ReplayRequest } from "@tool-rescue/testing"
 *
 * const isChat = (request: ReplayRequest) => request.api === "chat"
 * ```
 */
export type ReplayApi = "chat" | "responses" | "messages" | "models"

/**
 * A request body, as the server parsed it (JSON). The known fields are typed for convenience.
 *
 * @example
 * ```ts
 * import type { ReplayServer } from "@tool-rescue/testing"
 *
 * const lastUserMessage = (server: ReplayServer) => server.requests.at(-1)?.body?.messages?.at(-1)?.content
 * ```
 */
export interface ReplayRequestBody {
  readonly model?: string
  readonly stream?: boolean
  /** Chat Completions messages. */
  readonly messages?: ReadonlyArray<{
    readonly role: string
    readonly content?: unknown
    readonly [key: string]: unknown
  }>
  /** Responses API input. */
  readonly input?: unknown
  /** Responses API instructions. */
  readonly instructions?: string
  readonly tools?: readonly unknown[]
  readonly [key: string]: unknown
}

/**
 * One request the server received.
 *
 * @example
 * ```ts
 * import type { ReplayRequest } from "@tool-rescue/testing"
 *
 * const retried = (requests: readonly ReplayRequest[]) => requests.filter((r) => r.api === "chat").length > 1
 * ```
 */
export interface ReplayRequest {
  /** 0-based position among all requests this server received. */
  readonly index: number
  readonly method: string
  /** The path without the query string, e.g. `/v1/chat/completions`. */
  readonly path: string
  /** The API the path belongs to, `undefined` for an unknown route. */
  readonly api: ReplayApi | undefined
  /** Header names are lower-case. */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body; `undefined` when there was no body or it was not valid JSON. */
  readonly body: ReplayRequestBody | undefined
  /** The body exactly as received. */
  readonly rawBody: string
  /**
   * Whether the client closed the connection before the response was complete (a disconnect,
   * an abort, a proxy cutting its upstream request). Set when it happens.
   */
  readonly closedByClient: boolean
}

/**
 * Per-request answers: an array (one step per scripted request, in order) or a function of the
 * request. The function gets the request and its 0-based position among the scripted requests
 * (malformed requests and `GET /v1/models` do not count) and returns the step, or `undefined` to
 * signal that the script is exhausted.
 *
 * @example
 * ```ts
 * import type { ReplayScript } from "@tool-rescue/testing"
 *
 * // Leak on the first request, answer properly once the retry carries an instruction.
 * const script: ReplayScript = (request, turn) =>
 *   turn === 0 ? { content: "<function=bash>\n<parameter=cmd>\nls\n</parameter>\n</function>" } : { toolCalls: [{ name: "bash", arguments: '{"cmd":"ls"}' }] }
 * ```
 */
export type ReplayScript =
  | readonly ReplayStep[]
  | ((request: ReplayRequest, turn: number) => ReplayStep | undefined | Promise<ReplayStep | undefined>)

/**
 * Options of `startReplayServer`.
 *
 * @example
 * ```ts
 * import { startReplayServer } from "@tool-rescue/testing"
 *
 * const server = await startReplayServer({ script: [{ content: "hi" }], models: ["qwen3-coder"] })
 * ```
 */
export interface ReplayServerOptions {
  /** What the scripted model answers. */
  readonly script: ReplayScript
  /** The model ids `GET /v1/models` lists. @defaultValue `["replay-model"]` */
  readonly models?: readonly string[]
  /** The port to listen on (127.0.0.1 only). @defaultValue 0, a random free port */
  readonly port?: number
}

/**
 * A running replay server.
 *
 * @example
 * ```ts
 * import { startReplayServer } from "@tool-rescue/testing"
 *
 * const server = await startReplayServer({ script: [{ content: "hi" }] })
 * try {
 *   await fetch(`${server.url}/models`)
 * } finally {
 *   await server.close()
 * }
 * ```
 */
export interface ReplayServer {
  /** The base URL a client is configured with, e.g. `http://127.0.0.1:53211/v1`. */
  readonly url: string
  /** The port the server listens on. */
  readonly port: number
  /** Every request received so far, in arrival order (malformed ones included). */
  readonly requests: readonly ReplayRequest[]
  /** Stops the server: destroys idle and active connections and cancels pending delays. */
  close(): Promise<void>
}
