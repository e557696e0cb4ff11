/**
 * Non-streaming Responses API ↔ recovery's normalized parts. Each `output_text` and
 * `reasoning_text` content part becomes a text or reasoning part, each function/custom tool call
 * a tool-call part, and the response a finish part. The result is the last attempt's response
 * with the released text in place. Nothing was shown in a non-streaming call, so an abandoned
 * (malformed) attempt is absent from the result, prose included; its usage is added to the
 * result's.
 */
import type { NormalizedPart, OutputPart } from "@tool-rescue/recovery"
import { sumUsage } from "@tool-rescue/recovery/adapter"
import { copyResult } from "./copy-result.ts"
import { isRecord } from "./json.ts"
import { unknownCallErrors, type WireCall } from "./unknown-call-errors.ts"
import type { SplicerSettings } from "./wire-protocol.ts"

/**
 * A Responses response, as far as this module reads it (the `openai` client's `Response` is one;
 * other fields are carried as they came).
 */
export interface ResponseObject {
  readonly output: readonly unknown[]
  readonly usage?: unknown
  readonly [field: string]: unknown
}

/** The raw value riding on a Responses part: the response, and the content part it came from. */
export interface ResponseRef {
  readonly response: ResponseObject
  /** Index in `output` (-1 for the response as a whole). */
  readonly item: number
  /** Index in the item's `content` (-1 for the item as a whole). */
  readonly content: number
}

/**
 * A Responses response stopped at the output limit (`status: "incomplete"` with
 * `incomplete_details.reason: "max_output_tokens"`): markup still open then is a call cut off.
 */
export function atOutputLimit(response: unknown): boolean {
  if (!isRecord(response) || response.status !== "incomplete") return false
  const details = response.incomplete_details
  return isRecord(details) && details.reason === "max_output_tokens"
}

function outputOf(response: ResponseObject): readonly unknown[] {
  return Array.isArray(response.output) ? response.output : []
}

/** The name and argument text of a `function_call` or `custom_tool_call` item; undefined for other items. */
export function responseCall(item: unknown): WireCall | undefined {
  if (!isRecord(item) || (item.type !== "function_call" && item.type !== "custom_tool_call")) return undefined
  if (typeof item.name !== "string") return undefined
  const params = item.type === "function_call" ? item.arguments : item.input
  return { name: item.name, params: typeof params === "string" ? params : "" }
}

/** The call id of the item a tool-call part stands for. */
export function refCallIds(ref: ResponseRef): string[] {
  const item = outputOf(ref.response)[ref.item]
  return isRecord(item) && typeof item.call_id === "string" ? [item.call_id] : []
}

/** The normalized parts of one response. */
export function responseParts(response: ResponseObject): NormalizedPart<ResponseRef>[] {
  const parts: NormalizedPart<ResponseRef>[] = []
  outputOf(response).forEach((item, itemIndex) => {
    const call = responseCall(item)
    if (call !== undefined) {
      const raw = { response, item: itemIndex, content: -1 }
      parts.push({ type: "tool-call", toolName: call.name, params: call.params, raw })
      return
    }
    if (!isRecord(item) || (item.type !== "message" && item.type !== "reasoning")) return
    if (!Array.isArray(item.content)) return
    item.content.forEach((part: unknown, contentIndex) => {
      if (!isRecord(part) || typeof part.text !== "string" || part.text.length === 0) return
      const raw = { response, item: itemIndex, content: contentIndex }
      const id = typeof item.id === "string" ? item.id : `${itemIndex}`
      if (part.type === "output_text") parts.push({ type: "text", text: part.text, id, raw })
      else if (part.type === "reasoning_text") parts.push({ type: "reasoning", text: part.text, id, raw })
    })
  })
  const raw = { response, item: -1, content: -1 }
  // The output limit: markup still open then is a call cut off (`truncated-call`).
  parts.push(atOutputLimit(response) ? { type: "finish", raw, truncated: true } : { type: "finish", raw })
  return parts
}

/** Released text of one attempt, by `item:content`. */
type Released = Map<string, string>

function rewriteItems(response: ResponseObject, released: Released): { items: unknown[]; changed: boolean } {
  let changed = false
  const items: unknown[] = []
  outputOf(response).forEach((item, itemIndex) => {
    if (
      !isRecord(item) ||
      (item.type !== "message" && item.type !== "reasoning") ||
      !Array.isArray(item.content)
    ) {
      items.push(item)
      return
    }
    let shown = false
    let itemChanged = false
    const content = item.content.map((part: unknown, contentIndex) => {
      if (!isRecord(part) || (part.type !== "output_text" && part.type !== "reasoning_text")) return part
      const text = released.get(`${itemIndex}:${contentIndex}`) ?? ""
      if (text.length > 0) shown = true
      if (text === part.text) return part
      itemChanged = true
      return { ...part, text }
    })
    const hadText = item.content.some(
      (part: unknown) => isRecord(part) && typeof part.text === "string" && part.text.length > 0,
    )
    if (!shown && hadText) {
      // Every character of the item was withheld markup: the item is not shown at all.
      changed = true
      return
    }
    if (itemChanged) changed = true
    items.push(itemChanged ? { ...item, content } : item)
  })
  return { items, changed }
}

/** `output_text` of a response with `output`: its message items' text, joined. */
export function outputText(output: readonly unknown[]): string {
  const texts: string[] = []
  for (const item of output) {
    if (!isRecord(item) || item.type !== "message" || !Array.isArray(item.content)) continue
    for (const part of item.content) {
      if (isRecord(part) && part.type === "output_text" && typeof part.text === "string")
        texts.push(part.text)
    }
  }
  return texts.join("")
}

/** Reads recovery's output for a non-streaming Responses call and builds the response to return. */
export async function responseResult(
  output: AsyncIterable<OutputPart<ResponseRef>>,
  options: SplicerSettings,
): Promise<ResponseObject> {
  let released: Released = new Map()
  let final: ResponseObject | undefined
  let spent: unknown
  for await (const part of output) {
    switch (part.type) {
      case "text":
      case "reasoning": {
        if (part.raw === undefined) break
        const key = `${part.raw.item}:${part.raw.content}`
        released.set(key, (released.get(key) ?? "") + part.text)
        break
      }
      case "attempt-start":
        // The malformed attempt is dropped whole; only its usage counts.
        for (const abandoned of part.discarded) {
          const usage = abandoned.response.usage
          if (usage != null) spent = sumUsage(spent, usage)
        }
        released = new Map()
        break
      case "finish":
        final = part.raw.response
        break
      default:
        break
    }
  }
  if (final === undefined) throw new Error("tool-rescue: the recovered turn ended without a response")
  const { items, changed } = rewriteItems(final, released)
  let result = final
  if (changed) result = copyResult(final, { output: items, output_text: outputText(items) })
  if (spent !== undefined) {
    result = copyResult(result, { usage: final.usage == null ? spent : sumUsage(spent, final.usage) })
  }
  if (options.returnToolCallErrors) {
    const errors = unknownCallErrors(outputOf(result).map(responseCall), options.tools)
    result = copyResult(result, { tool_call_errors: errors })
  }
  return result
}
