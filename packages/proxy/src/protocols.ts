/**
 * The three protocols the proxy recovers, as data: each row is the protocol's wire mapping (an
 * `ApiAdapter`: skip rules, retry body, parts and splice) plus how it frames events and errors.
 * Adding a protocol is adding a row.
 */
import { type ApiAdapter, chatApi, responsesApi } from "@tool-rescue/openai/wire"
import { messagesApi } from "./messages-api.ts"
import { sseFrame } from "./read-sse.ts"

/**
 * The protocol of a recovered route.
 *
 * @example
 * ```ts
 * import type { ProtocolName } from "@tool-rescue/proxy"
 *
 * const label: ProtocolName = "messages" // Anthropic Messages
 * ```
 */
export type ProtocolName = "chat" | "responses" | "messages"

/** An error the proxy itself answers with, in the protocol's own shape. */
export interface ProtocolError {
  /** The error class (`invalid_request_error`, `tool_call_recovery_error`, …). */
  readonly type: string
  /** `repeated-markup`, `persist-failed`, `invalid_json`, `request_too_large`, … */
  readonly code: string
  readonly message: string
}

type AnyApi = ApiAdapter<unknown, unknown, unknown, unknown>

/** One row of {@link protocols}. */
export interface Protocol {
  readonly name: ProtocolName
  readonly api: AnyApi
  /** The `event:` name written before an event's data (Responses and Anthropic name events by type). */
  eventName(event: unknown): string | undefined
  /** An upstream stream event that reports an error: the attempt ends as a provider error. */
  isStreamError(event: unknown, name: string | undefined): boolean
  /** The stream ends with `data: [DONE]` (Chat Completions). */
  readonly sentinel: boolean
  /** The JSON body of an error response. */
  errorBody(error: ProtocolError): unknown
  /** The SSE frame of an error that ends a stream. */
  errorFrame(error: ProtocolError): string
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

const typeName = (event: unknown): string | undefined =>
  isRecord(event) && typeof event.type === "string" ? event.type : undefined

const openAiError = (error: ProtocolError) => ({
  error: { type: error.type, code: error.code, message: error.message, param: null },
})

/** Chat Completions: unnamed events, an error is `data: {"error": …}`, then `[DONE]`. */
const chat: Protocol = {
  name: "chat",
  api: chatApi as AnyApi,
  eventName: () => undefined,
  isStreamError: (event) => isRecord(event) && event.error !== undefined && event.error !== null,
  sentinel: true,
  errorBody: openAiError,
  errorFrame: (error) => sseFrame(JSON.stringify(openAiError(error))),
}

/** Responses: events named by type; an error is an `error` event (the openai client reads its `error`). */
const responses: Protocol = {
  name: "responses",
  api: responsesApi as AnyApi,
  eventName: typeName,
  isStreamError: (event, name) => name === "error" || typeName(event) === "error",
  sentinel: false,
  errorBody: openAiError,
  errorFrame: (error) =>
    sseFrame(
      JSON.stringify({ type: "error", code: error.code, message: error.message, ...openAiError(error) }),
      "error",
    ),
}

const anthropicError = (error: ProtocolError) => ({
  type: "error",
  error: { type: error.type, code: error.code, message: error.message },
})

/** Anthropic Messages: events named by type; an error is an `error` event with Anthropic's error body. */
const messages: Protocol = {
  name: "messages",
  api: messagesApi as AnyApi,
  eventName: typeName,
  isStreamError: (event, name) => name === "error" || typeName(event) === "error",
  sentinel: false,
  errorBody: anthropicError,
  errorFrame: (error) => sseFrame(JSON.stringify(anthropicError(error)), "error"),
}

/** The recovered routes, by protocol. */
export const protocols: Readonly<Record<ProtocolName, Protocol>> = { chat, responses, messages }
