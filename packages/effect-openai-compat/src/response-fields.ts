/**
 * The fields of a chat completion (or chunk) that become Effect response parts: finish reason,
 * usage, tool-call arguments. JSON is read through `@tool-rescue/wire`'s guards.
 */

import { isRecord } from "@tool-rescue/wire"
import type { Response } from "effect/ai"

const FINISH: ReadonlyMap<string, Response.FinishReason> = new Map([
  ["stop", "stop"],
  ["length", "length"],
  ["tool_calls", "tool-calls"],
  ["function_call", "tool-calls"],
  ["content_filter", "content-filter"],
])

/** A `finish_reason` as Effect's (`"unknown"` for a value it has no name for). */
export const finishReason = (value: unknown): Response.FinishReason =>
  (typeof value === "string" ? FINISH.get(value) : undefined) ?? "unknown"

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined

/**
 * `usage` (`prompt_tokens`, `completion_tokens`, their `*_details`' cached and reasoning
 * tokens) as Effect's usage; every count is left out when the server sent none.
 */
export function usageOf(usage: unknown): Response.FinishPartEncoded["usage"] {
  if (!isRecord(usage)) return { inputTokens: {}, outputTokens: {} }
  const input = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {}
  const output = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details : {}
  const inputTotal = count(usage.prompt_tokens)
  const cacheRead = count(input.cached_tokens)
  const outputTotal = count(usage.completion_tokens)
  const reasoning = count(output.reasoning_tokens)
  return {
    inputTokens: defined({
      total: inputTotal,
      cacheRead,
      uncached: inputTotal !== undefined && cacheRead !== undefined ? inputTotal - cacheRead : undefined,
    }),
    outputTokens: defined({
      total: outputTotal,
      reasoning,
      text: outputTotal !== undefined && reasoning !== undefined ? outputTotal - reasoning : undefined,
    }),
  }
}

/** The fields whose value is not `undefined` (`exactOptionalPropertyTypes`). */
function defined<T extends Record<string, number | undefined>>(fields: T): { [K in keyof T]?: number } {
  const out: { [K in keyof T]?: number } = {}
  for (const key of Object.keys(fields) as Array<keyof T>) {
    const value = fields[key]
    if (value !== undefined) out[key] = value
  }
  return out
}

/**
 * A call's `arguments` text as Effect's `params`: parsed JSON, or the raw text when it is not
 * JSON, so that Effect's validation (or the caller's, with deferred validation) sees it unchanged.
 */
export function callParams(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** A tool call of a message or delta: its `function` (or a custom tool's `custom`) fields. */
export interface CallFields {
  readonly index: number | undefined
  readonly id: string | undefined
  readonly name: string | undefined
  readonly arguments: string
}

/** The tool calls a message or delta carries, as far as they are there. */
export function callFields(message: unknown): CallFields[] {
  const calls = isRecord(message) ? message.tool_calls : undefined
  if (!Array.isArray(calls)) return []
  return calls.filter(isRecord).map((call) => {
    const fn = isRecord(call.function) ? call.function : isRecord(call.custom) ? call.custom : {}
    const text = fn.arguments ?? fn.input
    return {
      index: typeof call.index === "number" ? call.index : undefined,
      id: typeof call.id === "string" && call.id.length > 0 ? call.id : undefined,
      name: typeof fn.name === "string" && fn.name.length > 0 ? fn.name : undefined,
      arguments: typeof text === "string" ? text : "",
    }
  })
}
