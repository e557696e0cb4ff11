/**
 * Anthropic Messages (`POST /v1/messages`) stream events and messages ↔ recovery's normalized
 * parts.
 *
 * Stream events (docs.anthropic.com, "Streaming Messages"): `message_start`, then per content
 * block `content_block_start` / `content_block_delta`* / `content_block_stop`, then
 * `message_delta` (stop reason, usage) and `message_stop`; `ping` anywhere. Forward: a
 * `text_delta` is a text part, a `thinking_delta` a reasoning part, a `tool_use` block start a
 * structured tool call, `message_delta` the finish part; everything else is `other`.
 *
 * Back ({@link createMessagesSplicer}): the client sees one message whose block indexes count up
 * from 0 without gaps, and whose usage is the sum of every attempt's (recovery's `sumUsage`):
 * - a text or thinking block's `content_block_start` is held until its first visible text, so a
 *   block whose text was all withheld markup never appears (its later events are dropped);
 * - after a retry starts, the retry's `message_start` is dropped (the client already has one)
 *   and its blocks are numbered after the blocks already shown.
 */

import type { NormalizedPart, OutputPart } from "@tool-rescue/recovery"
import { sumUsage } from "@tool-rescue/recovery/adapter"
import { arrayField, isRecord, type JsonObject } from "./json.ts"
import type { Splicer, SplicerSettings } from "./wire-protocol.ts"

/** A streamed Messages event (`message_start`, `content_block_delta`, …), as parsed. */
export type MessagesEvent = JsonObject
/** A whole (non-streamed) Messages response, as parsed. */
export type MessageObject = JsonObject

type Event = MessagesEvent
type Message = MessageObject

/** The raw value riding on a non-streamed part: the message and the index of its content block. */
export interface MessageRef {
  readonly message: Message
  /** Index in `content` (-1 for the message as a whole). */
  readonly block: number
}

function textOfDelta(delta: unknown): { kind: "text" | "reasoning"; text: string } | undefined {
  if (!isRecord(delta)) return undefined
  if (delta.type === "text_delta" && typeof delta.text === "string") return { kind: "text", text: delta.text }
  if (delta.type === "thinking_delta" && typeof delta.thinking === "string")
    return { kind: "reasoning", text: delta.thinking }
  return undefined
}

/** The normalized parts of one streamed event. */
export function messageEventParts(event: Event): NormalizedPart<Event>[] {
  switch (event.type) {
    case "content_block_delta": {
      const piece = textOfDelta(event.delta)
      if (piece === undefined || piece.text.length === 0) return [{ type: "other", raw: event }]
      return [{ type: piece.kind, text: piece.text, raw: event }]
    }
    case "content_block_start": {
      const block = event.content_block
      if (isRecord(block) && block.type === "tool_use" && typeof block.name === "string")
        return [{ type: "tool-call", toolName: block.name, raw: event }]
      return [{ type: "other", raw: event }]
    }
    case "message_delta":
      return [{ type: "finish", raw: event }]
    default:
      return [{ type: "other", raw: event }]
  }
}

interface BlockState {
  /** The index the client sees, once the block is shown. */
  index: number | undefined
  /** `content_block_start` of a text block, until its first visible text. */
  held: Event | undefined
}

/** Creates the output side of a recovered Messages stream. */
export function createMessagesSplicer(_settings: SplicerSettings): Splicer<Event, Event> {
  let round = 0
  let shown = 0
  let blocks = new Map<number, BlockState>()
  /** Usage of the abandoned attempts (their `message_delta`s): the turn reports the sum. */
  let spent: unknown

  const wireIndex = (event: Event): number => (typeof event.index === "number" ? event.index : 0)
  const stateOf = (event: Event): BlockState => {
    const index = wireIndex(event)
    let state = blocks.get(index)
    if (state === undefined) {
      state = { index: undefined, held: undefined }
      blocks.set(index, state)
    }
    return state
  }
  const renumbered = (event: Event, index: number): Event =>
    event.index === index ? event : { ...event, index }
  /** Shows the block (its held start first) and returns its client index. */
  const open = (state: BlockState, out: Event[]): number => {
    if (state.index !== undefined) return state.index
    state.index = shown++
    if (state.held !== undefined) out.push(renumbered(state.held, state.index))
    state.held = undefined
    return state.index
  }

  function event(raw: Event): Event[] {
    const out: Event[] = []
    switch (raw.type) {
      case "message_start":
        if (round === 0) out.push(raw)
        break
      case "message_delta":
        out.push(
          spent === undefined || !isRecord(raw.usage) ? raw : { ...raw, usage: sumUsage(spent, raw.usage) },
        )
        break
      case "content_block_start": {
        const state = stateOf(raw)
        const block = raw.content_block
        const textual = isRecord(block) && (block.type === "text" || block.type === "thinking")
        const initial = textual ? (block.type === "text" ? block.text : block.thinking) : undefined
        if (textual && (typeof initial !== "string" || initial.length === 0)) state.held = raw
        else out.push(renumbered(raw, open(state, out)))
        break
      }
      case "content_block_delta":
      case "content_block_stop": {
        const state = stateOf(raw)
        // A block whose text was all withheld was never shown: nothing of it is.
        if (state.index !== undefined) out.push(renumbered(raw, state.index))
        break
      }
      default:
        out.push(raw)
    }
    return out
  }

  function text(part: { readonly text: string; readonly raw?: Event | undefined }): Event[] {
    const raw = part.raw
    if (raw === undefined || part.text.length === 0) return []
    const out: Event[] = []
    const index = open(stateOf(raw), out)
    const piece = textOfDelta(raw.delta)
    if (piece?.text === part.text) out.push(renumbered(raw, index))
    else {
      const delta =
        piece?.kind === "reasoning"
          ? { type: "thinking_delta", thinking: part.text }
          : { type: "text_delta", text: part.text }
      out.push({ type: "content_block_delta", index, delta })
    }
    return out
  }

  return {
    push(part) {
      switch (part.type) {
        case "attempt-start":
          round = part.round
          blocks = new Map()
          for (const raw of part.discarded)
            if (raw.type === "message_delta" && isRecord(raw.usage)) spent = sumUsage(spent, raw.usage)
          return []
        case "text":
        case "reasoning":
          return text(part)
        case "tool-call":
        case "finish":
        case "other":
          return event(part.raw)
        default:
          return part satisfies never
      }
    },
  }
}

/** The normalized parts of one non-streamed message. */
export function messageParts(message: Message): NormalizedPart<MessageRef>[] {
  const parts: NormalizedPart<MessageRef>[] = []
  const content = arrayField(message, "content")
  content.forEach((block, index) => {
    if (!isRecord(block)) return
    const raw = { message, block: index }
    if (block.type === "text" && typeof block.text === "string" && block.text.length > 0)
      parts.push({ type: "text", text: block.text, raw })
    else if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking.length > 0)
      parts.push({ type: "reasoning", text: block.thinking, raw })
    else if (block.type === "tool_use" && typeof block.name === "string")
      parts.push({
        type: "tool-call",
        toolName: block.name,
        params: JSON.stringify(block.input ?? {}),
        raw,
      })
  })
  parts.push({ type: "finish", raw: { message, block: -1 } })
  return parts
}

/**
 * The message to return: the final attempt's message with each text and thinking block holding
 * the text released for it; a block whose text was all withheld markup is left out.
 */
export async function messageResult(output: AsyncIterable<OutputPart<MessageRef>>): Promise<Message> {
  let released = new Map<number, string>()
  let final: Message | undefined
  /** Usage of the abandoned attempts: the turn reports the sum. */
  let spent: unknown
  for await (const part of output) {
    if (part.type === "text" || part.type === "reasoning") {
      if (part.raw !== undefined)
        released.set(part.raw.block, (released.get(part.raw.block) ?? "") + part.text)
    } else if (part.type === "attempt-start") {
      released = new Map()
      const abandoned = part.discarded[0]?.message
      if (isRecord(abandoned?.usage)) spent = sumUsage(spent, abandoned.usage)
    } else if (part.type === "finish") final = part.raw.message
  }
  if (final === undefined) throw new Error("tool-rescue: the recovered turn ended without a message")
  const content = arrayField(final, "content")
  let changed = false
  const blocks: unknown[] = []
  content.forEach((block, index) => {
    if (!isRecord(block) || (block.type !== "text" && block.type !== "thinking")) {
      blocks.push(block)
      return
    }
    const key = block.type === "text" ? "text" : "thinking"
    const value = block[key]
    const original = typeof value === "string" ? value : ""
    const text = released.get(index) ?? ""
    if (text === original) blocks.push(block)
    else {
      changed = true
      if (text.length > 0) blocks.push({ ...block, [key]: text })
    }
  })
  const message = changed ? { ...final, content: blocks } : final
  if (spent === undefined) return message
  return { ...message, usage: isRecord(final.usage) ? sumUsage(spent, final.usage) : spent }
}

/** The ids of the `tool_use` block a streamed event starts. */
export function messageEventCallIds(event: Event): string[] {
  const block = event.type === "content_block_start" ? event.content_block : undefined
  return isRecord(block) && block.type === "tool_use" && typeof block.id === "string" ? [block.id] : []
}

/** The id of the `tool_use` block a non-streamed part came from. */
export function messageRefCallIds(ref: MessageRef): string[] {
  const block = arrayField(ref.message, "content")[ref.block]
  return isRecord(block) && block.type === "tool_use" && typeof block.id === "string" ? [block.id] : []
}
