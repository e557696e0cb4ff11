/**
 * Streamed Responses API events ↔ recovery's normalized parts, and the splice that makes a
 * recovered stream one response the SDK's `ResponseStream` accepts.
 *
 * `ResponseStream` checks that the response id never changes across lifecycle events, that each
 * `output_index` is added once, that no item identity repeats, and that every unfinished item is
 * present in `response.completed`. So the splice:
 * - keeps the first attempt's response id, drops the retry's `created`/`in_progress`/`queued`,
 *   and rewrites the retry's terminal event (id, and the first attempt's finished items first);
 *   a stored response (`store: true`, {@link SplicerSettings.stored}) ends with the retry's own
 *   id instead, the one a continuation by `previous_response_id` must chain from (the helper's
 *   identity check then fails: a stateful chain is worth more than the helper);
 * - shifts the retry's `output_index` past every index already used, renames a repeated item id,
 *   and renumbers `sequence_number` so it only grows;
 * - holds a message or reasoning item's `output_item.added` (and its other non-final events)
 *   until the item's first visible text, so an item whose text was all withheld markup never
 *   appears;
 * - holds an item's `*.done` events until the text released for it equals the text they carry,
 *   and rewrites them with the released text when the attempt ends first (markup withheld, or
 *   the attempt abandoned for a retry).
 */
import type { NormalizedPart } from "@tool-rescue/recovery"
import { retryId, sumUsage } from "@tool-rescue/recovery/adapter"
import { isRecord } from "./json.ts"
import { atOutputLimit, outputText, responseCall } from "./response-parts.ts"
import { unknownCallErrors } from "./unknown-call-errors.ts"
import type { WireError } from "./wire-error.ts"
import type { Splicer, SplicerSettings } from "./wire-protocol.ts"

/**
 * A streamed Responses event, as far as this module reads it (the `openai` client's
 * `ResponseStreamEvent` is one; other fields are carried as they came).
 */
export interface ResponseEvent {
  readonly type: string
  readonly [field: string]: unknown
}

type Event = ResponseEvent
type Item = Record<string, unknown>

/**
 * The `response.error.code` that ends a turn recovery gave up on: `invalid_prompt`, a code of the
 * Responses API's own error list that its clients take as final. Codex CLI retries a
 * `response.failed` with any other code, and an `error` event or a stream that ends without a
 * terminal event as a dropped connection: five more requests, each a fresh turn.
 */
export const FAILED_TURN_CODE = "invalid_prompt"

const LIFECYCLE_START = new Set(["response.created", "response.in_progress", "response.queued"])
const LIFECYCLE_END = new Set(["response.completed", "response.incomplete", "response.failed"])
const TEXT_ITEMS: ReadonlySet<unknown> = new Set(["message", "reasoning"])
const TEXT_PARTS: ReadonlySet<unknown> = new Set(["output_text", "reasoning_text"])

/** The call id of the item an `output_item.added` tool-call event introduces. */
export function eventCallIds(event: ResponseEvent): string[] {
  const item = event.item
  return isRecord(item) && typeof item.call_id === "string" ? [item.call_id] : []
}

/** The normalized parts of one streamed Responses event. */
export function eventParts(event: ResponseEvent): NormalizedPart<ResponseEvent>[] {
  const e = event
  switch (e.type) {
    case "response.output_text.delta":
    case "response.reasoning_text.delta": {
      const text = typeof e.delta === "string" ? e.delta : ""
      if (text.length === 0) return [{ type: "other", raw: event }]
      const kind = e.type === "response.output_text.delta" ? "text" : "reasoning"
      const id = typeof e.item_id === "string" ? e.item_id : undefined
      return [id === undefined ? { type: kind, text, raw: event } : { type: kind, text, id, raw: event }]
    }
    case "response.output_item.added": {
      const call = responseCall(e.item)
      return [
        call === undefined
          ? { type: "other", raw: event }
          : { type: "tool-call", toolName: call.name, raw: event },
      ]
    }
    default:
      if (!LIFECYCLE_END.has(e.type)) return [{ type: "other", raw: event }]
      // The output limit: markup still open then is a call cut off (`truncated-call`).
      return [
        e.type === "response.incomplete" && atOutputLimit(e.response)
          ? { type: "finish", raw: event, truncated: true }
          : { type: "finish", raw: event },
      ]
  }
}

interface ItemState {
  readonly wireIndex: number
  readonly type: string
  /** The id the consumer sees (the wire id, renamed when an earlier attempt used it). */
  readonly id: string | undefined
  readonly textBearing: boolean
  /** `output_item.added` was emitted. */
  opened: boolean
  /** All of the item's text was withheld markup: the item and its events are not shown. */
  dropped: boolean
  /** `output_item.done` was emitted. */
  done: boolean
  /** The item as added (for a synthesized done). */
  readonly added: Item
  /** The item as emitted in `output_item.done`. */
  final: Item | undefined
  /** Released text per content index. */
  readonly released: Map<number, string>
  /** Events of an unopened item, waiting for its first text. */
  readonly queue: Event[]
}

function contentTexts(item: Item): Map<number, string> {
  const texts = new Map<number, string>()
  if (!Array.isArray(item.content)) return texts
  item.content.forEach((part, index) => {
    if (isRecord(part) && TEXT_PARTS.has(part.type) && typeof part.text === "string") {
      texts.set(index, part.text)
    }
  })
  return texts
}

/** The full text a `*.done` event of a text-bearing item carries, per content index; `undefined` for other events. */
function doneTexts(event: Event): Map<number, string> | undefined {
  const ci = typeof event.content_index === "number" ? event.content_index : 0
  switch (event.type) {
    case "response.output_text.done":
    case "response.reasoning_text.done":
      return new Map([[ci, typeof event.text === "string" ? event.text : ""]])
    case "response.content_part.done": {
      const part = event.part
      return isRecord(part) && TEXT_PARTS.has(part.type)
        ? new Map([[ci, typeof part.text === "string" ? part.text : ""]])
        : new Map()
    }
    case "response.output_item.done":
      return isRecord(event.item) ? contentTexts(event.item) : new Map()
    default:
      return undefined
  }
}

/** Whether the text released for an item differs anywhere from `texts`, the text the server sent. */
function releasedDiffers(state: ItemState, texts: ReadonlyMap<number, string>): boolean {
  for (const [ci, text] of texts) if ((state.released.get(ci) ?? "") !== text) return true
  return false
}

/**
 * Creates the output side of a recovered Responses stream. It relies on {@link runTurn}'s order
 * guarantee: a non-text part never overtakes text before it, so when an item's `*.done` event
 * arrives, all of the item's text has been released or withheld.
 */
export function createResponsesSplicer(options: SplicerSettings): Splicer<ResponseEvent, ResponseEvent> {
  let round = 0
  /** Usage of the abandoned attempts: the terminal event reports the turn's sum. */
  let spent: unknown
  let responseId: string | undefined
  /** The first attempt's response as `response.created` gave it: a failed turn's response starts from it. */
  let created: Record<string, unknown> | undefined
  let lastSeq = -1
  let indexOffset = 0
  let nextIndex = 0
  const usedIds = new Set<string>()
  /** Shown items of abandoned attempts, in order: the recovered response's output starts with them. */
  const carried: Item[] = []
  let items = new Map<number, ItemState>()
  const out: Event[] = []

  function send(event: Event): void {
    const seq = typeof event.sequence_number === "number" ? event.sequence_number : lastSeq + 1
    const next = round === 0 && seq > lastSeq ? seq : lastSeq + 1
    lastSeq = next
    out.push(next === event.sequence_number ? event : { ...event, sequence_number: next })
  }

  /** An item-scoped event in the consumer's numbering and ids. */
  function scoped(event: Event, state: ItemState | undefined): Event {
    let next = event
    if (typeof event.output_index === "number" && indexOffset !== 0) {
      next = { ...next, output_index: event.output_index + indexOffset }
    }
    if (state?.id !== undefined) {
      if (typeof next.item_id === "string" && next.item_id !== state.id) next = { ...next, item_id: state.id }
      if (isRecord(next.item) && next.item.id !== state.id)
        next = { ...next, item: { ...next.item, id: state.id } }
    }
    return next
  }

  function withReleasedText(state: ItemState, item: Item): Item {
    let next = state.id !== undefined && item.id !== state.id ? { ...item, id: state.id } : item
    const texts = contentTexts(item)
    if (releasedDiffers(state, texts) && Array.isArray(item.content)) {
      next = {
        ...next,
        content: item.content.map((part, ci) =>
          texts.has(ci) && isRecord(part) ? { ...part, text: state.released.get(ci) ?? "" } : part,
        ),
      }
    }
    return next
  }

  /** A `*.done` event with the released text in place of the text the server sent. */
  function rewriteDone(state: ItemState, event: Event, texts: Map<number, string>): Event {
    if (!releasedDiffers(state, texts)) return event
    const ci = typeof event.content_index === "number" ? event.content_index : 0
    const text = state.released.get(ci) ?? ""
    switch (event.type) {
      case "response.output_text.done":
      case "response.reasoning_text.done":
        return { ...event, text, ...("logprobs" in event ? { logprobs: [] } : {}) }
      case "response.content_part.done":
        return { ...event, part: { ...(isRecord(event.part) ? event.part : {}), text } }
      default:
        return isRecord(event.item) ? { ...event, item: withReleasedText(state, event.item) } : event
    }
  }

  function emit(state: ItemState, event: Event): void {
    if (event.type === "response.output_item.added") state.opened = true
    if (event.type === "response.output_item.done") {
      state.done = true
      if (isRecord(event.item)) state.final = event.item
    }
    send(scoped(event, state))
  }

  function open(state: ItemState): void {
    state.opened = true
    for (const event of state.queue.splice(0)) emit(state, event)
  }

  function track(event: Event): ItemState | undefined {
    if (typeof event.output_index !== "number") return undefined
    const existing = items.get(event.output_index)
    if (existing !== undefined || event.type !== "response.output_item.added" || !isRecord(event.item))
      return existing
    const item = event.item
    let id = typeof item.id === "string" ? item.id : undefined
    // The SDK rejects a repeated item identity: a retry's item that reuses an id is renamed
    // (recovery's `retryId`, the suffix every adapter uses).
    if (id !== undefined && usedIds.has(id)) id = retryId(id, round)
    if (id !== undefined) usedIds.add(id)
    nextIndex = Math.max(nextIndex, event.output_index + indexOffset + 1)
    const state: ItemState = {
      wireIndex: event.output_index,
      type: String(item.type),
      id,
      textBearing: TEXT_ITEMS.has(item.type),
      opened: false,
      dropped: false,
      done: false,
      added: item,
      final: undefined,
      released: new Map(),
      queue: [],
    }
    items.set(event.output_index, state)
    return state
  }

  function onText(part: { readonly text: string; readonly raw?: ResponseEvent }): void {
    const raw = part.raw
    if (raw === undefined || part.text.length === 0) return
    const delta =
      part.text === raw.delta
        ? raw
        : { ...raw, delta: part.text, ...("logprobs" in raw ? { logprobs: [] } : {}) }
    const state = typeof raw.output_index === "number" ? items.get(raw.output_index) : undefined
    if (state === undefined) {
      send(scoped(delta, undefined))
      return
    }
    if (!state.opened) open(state)
    const ci = typeof raw.content_index === "number" ? raw.content_index : 0
    state.released.set(ci, (state.released.get(ci) ?? "") + part.text)
    emit(state, delta)
  }

  function onItemEvent(state: ItemState, event: Event): void {
    if (!state.textBearing) {
      emit(state, event)
      return
    }
    if (state.dropped) return
    const texts = doneTexts(event)
    if (!state.opened) {
      if (texts === undefined) {
        state.queue.push(event)
        return
      }
      // The item's text is decided. Nothing released: shown only if it never had any text.
      for (const text of texts.values()) {
        if (text.length > 0) {
          state.dropped = true
          state.queue.length = 0
          return
        }
      }
      open(state)
    }
    emit(state, texts === undefined ? event : rewriteDone(state, event, texts))
  }

  /** The terminal event: the first attempt's id (the retry's when stored), abandoned attempts' items first, released text in place. */
  function terminal(event: Event): Event {
    for (const state of items.values()) if (!state.opened) state.dropped = true
    const response = event.response
    if (!isRecord(response)) return event
    const byWireId = new Map<unknown, ItemState>()
    for (const state of items.values()) byWireId.set(state.added.id, state)
    let changed = round > 0
    const output: unknown[] = []
    for (const item of Array.isArray(response.output) ? response.output : []) {
      const state = isRecord(item) ? byWireId.get(item.id) : undefined
      if (state?.dropped === true) {
        changed = true
        continue
      }
      const next = state === undefined || !isRecord(item) ? item : withReleasedText(state, item)
      if (next !== item) changed = true
      output.push(next)
    }
    let next: Record<string, unknown> = response
    if (changed) {
      const all = [...carried, ...output]
      next = { ...response, output: all }
      // A stored response keeps its own id (the retry's): the one a continuation must chain from.
      if (responseId !== undefined && options.stored !== true) next.id = responseId
      if ("output_text" in response) next.output_text = outputText(all)
    }
    if (spent !== undefined) {
      next = { ...next, usage: isRecord(next.usage) ? sumUsage<unknown>(spent, next.usage) : spent }
    }
    if (options.returnToolCallErrors) {
      const calls = Array.isArray(next.output) ? next.output.map(responseCall) : []
      next = { ...next, tool_call_errors: unknownCallErrors(calls, options.tools) }
    }
    return next === response ? event : { ...event, response: next }
  }

  /** Finishes an abandoned attempt: items shown but cut short get their done events; shown items carry over. */
  function abandon(): void {
    for (const state of [...items.values()].sort((a, b) => a.wireIndex - b.wireIndex)) {
      if (!state.opened || state.dropped) continue
      if (!state.done) {
        const item: Item = { ...state.added, status: "completed" }
        if (state.textBearing) {
          const partType = state.type === "message" ? "output_text" : "reasoning_text"
          const content: Item[] = []
          for (const [ci, text] of [...state.released].sort(([a], [b]) => a - b)) {
            const part: Item =
              partType === "output_text"
                ? { type: partType, text, annotations: [] }
                : { type: partType, text }
            content.push(part)
            const at = { item_id: state.id, output_index: state.wireIndex, content_index: ci }
            const doneType =
              partType === "output_text" ? "response.output_text.done" : "response.reasoning_text.done"
            emit(state, { type: doneType, ...at, text })
            emit(state, { type: "response.content_part.done", ...at, part })
          }
          item.content = content
        }
        emit(state, { type: "response.output_item.done", output_index: state.wireIndex, item })
      }
      carried.push(withReleasedText(state, state.final ?? state.added))
    }
  }

  return {
    push(part) {
      switch (part.type) {
        case "attempt-start":
          abandon()
          for (const abandoned of part.discarded) {
            const response = abandoned.response
            if (isRecord(response) && isRecord(response.usage))
              spent = sumUsage<unknown>(spent, response.usage)
          }
          round = part.round
          indexOffset = nextIndex
          items = new Map()
          break
        case "text":
        case "reasoning":
          onText(part)
          break
        case "tool-call":
        case "finish":
        case "other": {
          const event = part.raw
          if (LIFECYCLE_START.has(event.type)) {
            if (round > 0) break
            if (created === undefined && isRecord(event.response)) created = event.response
            if (
              responseId === undefined &&
              isRecord(event.response) &&
              typeof event.response.id === "string"
            ) {
              responseId = event.response.id
            }
            send(event)
          } else if (LIFECYCLE_END.has(event.type)) {
            send(terminal(event))
          } else {
            const state = track(event)
            if (state === undefined) send(scoped(event, undefined))
            else onItemEvent(state, event)
          }
          break
        }
        default:
          part satisfies never
      }
      return out.splice(0)
    },
    fail(error: WireError) {
      // What was shown is finished and kept, as a completed response keeps it.
      abandon()
      items = new Map()
      const response: Record<string, unknown> = {
        ...(created ?? { object: "response" }),
        ...(responseId === undefined ? {} : { id: responseId }),
        status: "failed",
        error: { code: FAILED_TURN_CODE, message: `tool-rescue ${error.code}: ${error.message}` },
        incomplete_details: null,
        output: carried.slice(),
      }
      if (spent !== undefined) response.usage = spent
      send({ type: "response.failed", response })
      return out.splice(0)
    },
  }
}
