import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from "@ai-sdk/provider"
import type { OutputPart } from "@tool-rescue/recovery"
import { retryId } from "@tool-rescue/recovery/adapter"
import { markTurn } from "./turn-mark.ts"

type Part = LanguageModelV4StreamPart
type StartPart = Extract<Part, { type: "text-start" | "reasoning-start" }>
type EndPart = Extract<Part, { type: "text-end" | "reasoning-end" }>
type BlockKind = "text" | "reasoning"

const DELTA_TYPE = { text: "text-delta", reasoning: "reasoning-delta" } as const

/**
 * One text or reasoning block of the spliced stream: `pending` from its `*-start` until its
 * first visible text, then `open` until its `*-end`. The `*-start` is delayed until there is text
 * to show, so a block that holds nothing but withheld markup never appears (ai#7774 delays
 * `text-start` the same way). `runTurn` keeps parts in arrival order and holds a `*-end` behind
 * the block's undecided text, so a block never receives text after its end.
 */
type BlockState = "pending" | "open"

interface Block {
  readonly kind: BlockKind
  /** The id the consumer sees (renamed on retries). */
  readonly id: string
  state: BlockState
  start: StartPart | undefined
}

/**
 * Turns what `runTurn` yields into one well-formed V4 stream, as if one model call had produced
 * it. The step then sees:
 * - text and reasoning ids unique across attempts (a retry's ids get a `-retry<N>` suffix);
 *   every block opened is closed, before the next attempt and before `finish`;
 * - a retry's tool calls marked with the recoveries the turn has made (`providerMetadata`, see
 *   `readTurnMark`), so that the next step of the turn knows its budget;
 * - one `stream-start` (the first attempt's; a retry's warnings repeat the same request's);
 * - every `response-metadata`: the last one describes the response whose content was kept;
 * - exactly one `finish`, carrying the usage of all attempts.
 */
export interface StreamSplicer {
  /** Maps one part from `runTurn`. */
  push(part: OutputPart<Part>): void
  /** The turn completed: closes open blocks and emits the last attempt's `finish` with `usage`. */
  end(usage: LanguageModelV4Usage | undefined): void
  /** The turn failed: closes open blocks. */
  close(): void
}

/**
 * Creates a {@link StreamSplicer} that hands each part of the spliced stream to `emit`;
 * `recoveriesBefore` is what earlier steps of the turn spent.
 */
export function createStreamSplicer(emit: (part: Part) => void, recoveriesBefore = 0): StreamSplicer {
  const blocks = new Map<string, Block>()
  let round = 0
  let streamStarted = false
  let finish: Extract<Part, { type: "finish" }> | undefined
  /** The block of the previous delta: consecutive deltas of one block skip the key and lookup. */
  let last: { kind: BlockKind; sourceId: string; block: Block } | undefined

  const outputId = (id: string): string => retryId(id, round)

  /** Ends every open block (an attempt or the turn ends) and forgets the pending ones. */
  function closeAll(): void {
    last = undefined
    for (const block of blocks.values()) {
      if (block.state === "open") emit({ type: `${block.kind}-end`, id: block.id })
    }
    blocks.clear()
  }

  function onStart(kind: BlockKind, part: StartPart): void {
    const key = `${kind}:${part.id}`
    const block = blocks.get(key)
    if (block === undefined) {
      blocks.set(key, { kind, id: outputId(part.id), state: "pending", start: part })
    } else if (block.state === "pending") {
      block.start = part
    }
    // `open`: the provider re-opened an id whose block is still open; it continues that block.
  }

  function onEnd(kind: BlockKind, part: EndPart): void {
    const key = `${kind}:${part.id}`
    const block = blocks.get(key)
    if (block === undefined) return
    blocks.delete(key)
    if (last?.block === block) last = undefined
    if (block.state === "open") emit({ ...part, id: block.id })
  }

  function onDelta(kind: BlockKind, text: string, id: string | undefined, raw: Part | undefined): void {
    if (text.length === 0) return
    const sourceId = id ?? (kind === "text" ? "txt-0" : "reasoning-0")
    let block: Block | undefined
    if (last !== undefined && last.kind === kind && last.sourceId === sourceId) {
      block = last.block
    } else {
      const key = `${kind}:${sourceId}`
      block = blocks.get(key)
      if (block === undefined) {
        block = { kind, id: outputId(sourceId), state: "pending", start: undefined }
        blocks.set(key, block)
      }
      last = { kind, sourceId, block }
    }
    if (block.state === "pending") {
      const meta = block.start?.providerMetadata
      emit({ type: `${kind}-start`, id: block.id, ...(meta === undefined ? {} : { providerMetadata: meta }) })
      block.state = "open"
    }
    // The hot path: a delta passed through whole (same text, same id) is emitted as the very
    // part the provider produced, with no copy.
    const type = DELTA_TYPE[kind]
    const delta = raw?.type === type ? raw : undefined
    if (delta !== undefined && delta.id === block.id && delta.delta === text) {
      emit(delta)
      return
    }
    const meta = delta?.providerMetadata
    emit(
      meta === undefined
        ? { type, id: block.id, delta: text }
        : { type, id: block.id, delta: text, providerMetadata: meta },
    )
  }

  function onOther(part: Part): void {
    switch (part.type) {
      case "text-start":
      case "reasoning-start":
        onStart(part.type === "text-start" ? "text" : "reasoning", part)
        return
      case "text-end":
      case "reasoning-end":
        onEnd(part.type === "text-end" ? "text" : "reasoning", part)
        return
      case "stream-start":
        if (streamStarted) return
        streamStarted = true
        emit(part)
        return
      case "finish":
        finish = part
        return
      case "tool-call":
        emit(
          round === 0
            ? part
            : {
                ...part,
                providerMetadata: markTurn(part.providerMetadata, recoveriesBefore + round),
              },
        )
        return
      default:
        emit(part)
    }
  }

  return {
    push(part) {
      switch (part.type) {
        case "text":
        case "reasoning":
          onDelta(part.type, part.text, part.id, part.raw)
          return
        case "tool-call":
        case "finish":
        case "other":
          onOther(part.raw)
          return
        case "attempt-start":
          closeAll()
          finish = undefined
          round = part.round
          return
        default:
          part satisfies never
      }
    },
    end(usage) {
      closeAll()
      if (finish !== undefined) emit(usage === undefined ? finish : { ...finish, usage })
    },
    close: closeAll,
  }
}
