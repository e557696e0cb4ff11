/**
 * The row type of the proxy's protocol table (`protocols.ts`): a protocol's wire mapping (an
 * `ApiAdapter`: parts, retry body, splice) and the wire facts the turn rules of
 * `@tool-rescue/recovery` read (the request's tools and tool choice, the history's marks, usage,
 * call ids). The rules themselves — skip, budget, usage sum, the mark — are recovery's.
 */

import type { ApiAdapter } from "@tool-rescue/openai/wire"
import type { TurnRequest } from "@tool-rescue/recovery/adapter"

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

/**
 * An error the proxy itself answers with, in the protocol's own shape.
 *
 * @example
 * ```ts
 * import type { ProtocolError } from "@tool-rescue/proxy"
 *
 * const error: ProtocolError = { type: "tool_call_recovery_error", code: "repeated-markup", message: "…" }
 * ```
 */
export interface ProtocolError {
  /** The error class (`invalid_request_error`, `tool_call_recovery_error`, …). */
  readonly type: string
  /** `repeated-markup`, `persist-failed`, `invalid_json`, `request_too_large`, … */
  readonly code: string
  readonly message: string
}

/** A JSON value's kind, as a request field's type is checked. */
export type JsonKind = "string" | "number" | "boolean" | "array" | "object"

/** The kind of a JSON value (`undefined` for `null`). */
export function jsonKind(value: unknown): JsonKind | undefined {
  if (value === null) return undefined
  if (Array.isArray(value)) return "array"
  const kind = typeof value
  return kind === "string" || kind === "number" || kind === "boolean" || kind === "object" ? kind : undefined
}

/** Any protocol's adapter, over parsed JSON. */
export type AnyApi = ApiAdapter<unknown, unknown, unknown, unknown>

/** One row of the protocol table. */
export interface Protocol {
  readonly name: ProtocolName
  readonly api: AnyApi
  /**
   * The request fields the proxy reads (to decide, to retry), with the kinds the protocol allows:
   * one of another kind is the protocol's 400 and nothing goes upstream. Other fields go upstream
   * as they came (model servers extend the protocols: vLLM's `chat_template_kwargs`, …).
   */
  readonly fields: Readonly<Record<string, readonly JsonKind[]>>
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
  /**
   * The request as recovery's `planTurn` reads it: tools, tool choice, the protocol's own
   * reasons, and the recoveries the turn already made — the largest mark (`turn-mark.ts`) on a
   * tool-call id after the last user message: the ids of a recovered response come back in every
   * later request of the agent's turn, so the proxy keeps no state between requests.
   */
  turnRequest(body: Readonly<Record<string, unknown>>): TurnRequest
  /** `item` with the ids of its tool calls marked with `recoveries` (`markId`, `turn-mark.ts`). */
  markCalls(item: unknown, recoveries: number): unknown
}

/** Whether `value` is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/** The `type` of a JSON event (Responses and Anthropic name their events by it). */
export function eventType(event: unknown): string | undefined {
  return isRecord(event) && typeof event.type === "string" ? event.type : undefined
}
