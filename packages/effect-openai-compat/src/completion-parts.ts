import { type ChatCompletion, chatChoices, chatReasoningText, contentText, isRecord } from "@tool-rescue/wire"
import type { Response } from "effect/ai"
import { callFields, callParams, finishReason, usageOf } from "./response-fields.ts"

/**
 * A whole chat completion (`stream: false`) → Effect's response parts: metadata, reasoning
 * (`reasoning_content` or `reasoning`), text, one `tool-call` per call, and `finish` with the
 * usage. `undefined` when the body is no completion (the caller reports an invalid response).
 *
 * @example
 * ```ts
 * completionParts({ id: "c", model: "m", choices: [{ message: { content: "Hi" }, finish_reason: "stop" }] })
 * // [{ type: "response-metadata", … }, { type: "text", text: "Hi" }, { type: "finish", reason: "stop", … }]
 * ```
 */
export function completionParts(body: unknown): Response.PartEncoded[] | undefined {
  if (!isRecord(body)) return undefined
  const choice = chatChoices(body)[0]
  const message = choice?.message
  if (choice === undefined || !isRecord(message)) return undefined
  const parts: Response.PartEncoded[] = [metadataPart(body)]
  const reasoning = chatReasoningText(message)
  if (reasoning.length > 0) parts.push({ type: "reasoning", text: reasoning })
  const text = contentText(message.content)
  if (text.length > 0) parts.push({ type: "text", text })
  callFields(message).forEach((call, i) => {
    parts.push({
      type: "tool-call",
      id: call.id ?? `call_${i}`,
      name: call.name ?? "",
      params: callParams(call.arguments),
    })
  })
  parts.push({ type: "finish", reason: finishReason(choice.finish_reason), usage: usageOf(body.usage) })
  return parts
}

/** The completion's (or first chunk's) `id` and `model`, when they are strings. */
export function metadataPart(body: Partial<ChatCompletion>): Response.ResponseMetadataPartEncoded {
  const part: {
    -readonly [K in keyof Response.ResponseMetadataPartEncoded]: Response.ResponseMetadataPartEncoded[K]
  } = {
    type: "response-metadata",
  }
  if (typeof body.id === "string") part.id = body.id
  if (typeof body.model === "string") part.modelId = body.model
  if (typeof body.created === "number") part.timestamp = new Date(body.created * 1000).toISOString()
  return part
}
