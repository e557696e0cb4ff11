/**
 * The client type {@link withToolCallRecovery} returns. With the default options it is exactly
 * the type of the client passed in; only `unknownToolCalls: "return"` (or an option whose value
 * is not statically known) changes `create`'s results to carry `tool_call_errors`.
 */
import type { ReturnsToolCallErrors, ToolCallError } from "@tool-rescue/recovery"
import type { APIPromise } from "openai"
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  Completions,
} from "openai/resources/chat/completions"
import type {
  Response,
  ResponseCreateParamsBase,
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
} from "openai/resources/responses/responses"
import type { Stream } from "openai/streaming"

// `openai` does not export its `RequestOptions` type from a public path: take it from `create`.
type RequestOptions = NonNullable<Parameters<Completions["create"]>[1]>

/**
 * The smallest client shape {@link withToolCallRecovery} accepts: an `openai` client (`OpenAI`,
 * `AzureOpenAI`, a subclass) from any copy of the package. Typed structurally so that two
 * installed copies of `openai` do not fight over nominal class types.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import type { OpenAIClientLike } from "@tool-rescue/openai"
 *
 * const client: OpenAIClientLike = new OpenAI({ apiKey: "local", baseURL: "http://127.0.0.1:8000/v1" })
 * ```
 */
export interface OpenAIClientLike {
  readonly chat: { readonly completions: { create(...args: never[]): unknown } }
}

/**
 * The `tool_call_errors` field a result carries under `unknownToolCalls: "return"` (required) or
 * an option whose value is not statically known (optional: it may be `"error"` at run time).
 *
 * @example
 * ```ts
 * import type { ToolCallErrorsField } from "@tool-rescue/openai"
 *
 * type Returned = ToolCallErrorsField<"return"> // { tool_call_errors: ToolCallError[] }
 * ```
 */
export type ToolCallErrorsField<Mode> = [Mode] extends ["return"]
  ? { tool_call_errors: ToolCallError[] }
  : { tool_call_errors?: ToolCallError[] }

/**
 * A streamed chat chunk under `unknownToolCalls: "return"`: the chunk carrying the
 * `finish_reason` also carries `tool_call_errors`.
 *
 * @example
 * ```ts
 * import type { ChatCompletionChunkWithToolCallErrors } from "@tool-rescue/openai"
 *
 * const errorsOf = (chunk: ChatCompletionChunkWithToolCallErrors) => chunk.tool_call_errors ?? []
 * ```
 */
export type ChatCompletionChunkWithToolCallErrors = ChatCompletionChunk & {
  tool_call_errors?: ToolCallError[]
}

/**
 * A Responses stream event under `unknownToolCalls: "return"`: the terminal event's `response`
 * (`response.completed`, `.incomplete`, `.failed`) carries `tool_call_errors`.
 *
 * @example
 * ```ts
 * import type { ResponseStreamEventWithToolCallErrors } from "@tool-rescue/openai"
 *
 * const errorsOf = (event: ResponseStreamEventWithToolCallErrors) =>
 *   event.type === "response.completed" ? (event.response.tool_call_errors ?? []) : []
 * ```
 */
export type ResponseStreamEventWithToolCallErrors = ResponseStreamEvent extends infer E
  ? E extends { readonly response: Response }
    ? Omit<E, "response"> & { response: Response & { tool_call_errors?: ToolCallError[] } }
    : E
  : never

/**
 * `chat.completions.create` with results that carry `tool_call_errors`.
 *
 * @example
 * ```ts
 * import type { ChatCreateWithToolCallErrors } from "@tool-rescue/openai"
 *
 * declare const create: ChatCreateWithToolCallErrors<"return">
 * ```
 */
export interface ChatCreateWithToolCallErrors<Mode> {
  (
    body: ChatCompletionCreateParamsNonStreaming,
    options?: RequestOptions,
  ): APIPromise<ChatCompletion & ToolCallErrorsField<Mode>>
  (
    body: ChatCompletionCreateParamsStreaming,
    options?: RequestOptions,
  ): APIPromise<Stream<ChatCompletionChunkWithToolCallErrors>>
  (
    body: ChatCompletionCreateParamsBase,
    options?: RequestOptions,
  ): APIPromise<Stream<ChatCompletionChunkWithToolCallErrors> | (ChatCompletion & ToolCallErrorsField<Mode>)>
}

/**
 * `responses.create` with results that carry `tool_call_errors`.
 *
 * @example
 * ```ts
 * import type { ResponsesCreateWithToolCallErrors } from "@tool-rescue/openai"
 *
 * declare const create: ResponsesCreateWithToolCallErrors<"return">
 * ```
 */
export interface ResponsesCreateWithToolCallErrors<Mode> {
  (
    body: ResponseCreateParamsNonStreaming,
    options?: RequestOptions,
  ): APIPromise<Response & ToolCallErrorsField<Mode>>
  (
    body: ResponseCreateParamsStreaming,
    options?: RequestOptions,
  ): APIPromise<Stream<ResponseStreamEventWithToolCallErrors>>
  (
    body: ResponseCreateParamsBase,
    options?: RequestOptions,
  ): APIPromise<Stream<ResponseStreamEventWithToolCallErrors> | (Response & ToolCallErrorsField<Mode>)>
}

type ChatOf<C> = C extends { readonly chat: infer Chat } ? Chat : never
type CompletionsOf<C> = ChatOf<C> extends { readonly completions: infer Completions } ? Completions : never
type ResponsesOf<C> = C extends { readonly responses: infer R } ? R : never
type WithOptionsArg<C> = C extends { withOptions(options: infer A): unknown } ? A : never

/**
 * The client type under `unknownToolCalls: "return"`: `chat.completions.create` and
 * `responses.create` results carry `tool_call_errors`; everything else is the client's own.
 *
 * @example
 * ```ts
 * import type OpenAI from "openai"
 * import type { ClientWithToolCallErrors } from "@tool-rescue/openai"
 *
 * declare const client: ClientWithToolCallErrors<OpenAI, "return">
 * ```
 */
export type ClientWithToolCallErrors<C, Mode> = Omit<C, "chat" | "responses" | "withOptions"> & {
  readonly chat: Omit<ChatOf<C>, "completions"> & {
    readonly completions: Omit<CompletionsOf<C>, "create"> & { create: ChatCreateWithToolCallErrors<Mode> }
  }
  withOptions(options: WithOptionsArg<C>): ClientWithToolCallErrors<C, Mode>
} & (C extends { readonly responses: unknown }
    ? {
        readonly responses: Omit<ResponsesOf<C>, "create"> & {
          create: ResponsesCreateWithToolCallErrors<Mode>
        }
      }
    : unknown)

/**
 * What {@link withToolCallRecovery} returns for a client of type `C` and an `unknownToolCalls`
 * option of type `Mode`: exactly `C` for the default (`"error"`, or left out: `undefined`), and
 * {@link ClientWithToolCallErrors} when `Mode` may be `"return"`.
 *
 * @example
 * ```ts
 * import type OpenAI from "openai"
 * import type { RecoveringClient } from "@tool-rescue/openai"
 *
 * type Same = RecoveringClient<OpenAI, undefined> // OpenAI
 * type WithErrors = RecoveringClient<OpenAI, "return">
 * ```
 */
export type RecoveringClient<C, Mode> =
  ReturnsToolCallErrors<Mode> extends true ? ClientWithToolCallErrors<C, Mode> : C
