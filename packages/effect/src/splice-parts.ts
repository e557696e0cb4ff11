import type { NormalizedPart, OutputPart } from "@tool-rescue/recovery"
import { retryId, sumUsage } from "@tool-rescue/recovery/adapter"
import { Response } from "effect/ai"
import { markTurn } from "./turn-mark.ts"
import type { AnyTools } from "./untyped-model.ts"

/** A decoded stream part of any toolkit (the decorator is generic over the caller's tools). */
export type StreamPart = Response.StreamPart<AnyTools, Response.ToolParametersMode>
/** A decoded response part of any toolkit. */
export type ContentPart = Response.Part<AnyTools, Response.ToolParametersMode>

/**
 * A stream part as `runTurn` sees it: answer and reasoning deltas are scanned, structured tool
 * calls and `finish` are named, everything else passes through untouched, in order.
 */
export function normalizeStreamPart(part: StreamPart): NormalizedPart<StreamPart> {
  switch (part.type) {
    case "text-delta":
      return { type: "text", text: part.delta, id: part.id, raw: part }
    case "reasoning-delta":
      return { type: "reasoning", text: part.delta, id: part.id, raw: part }
    case "tool-call":
      return toolCall(part)
    case "finish":
      return finishPart(part)
    case "error":
      // A provider error reported inside the stream: the attempt is final, never retried.
      return { type: "other", raw: part, failed: true }
    default:
      return { type: "other", raw: part }
  }
}

/** A `generateText` response as normalized parts; a text part's id is its index. */
export function normalizeContent(content: ReadonlyArray<ContentPart>): Array<NormalizedPart<ContentPart>> {
  return content.map((part, index) => {
    switch (part.type) {
      case "text":
        return { type: "text", text: part.text, id: String(index), raw: part }
      case "reasoning":
        return { type: "reasoning", text: part.text, id: String(index), raw: part }
      case "tool-call":
        return toolCall(part)
      case "finish":
        return finishPart(part)
      default:
        return { type: "other", raw: part }
    }
  })
}

/**
 * A finish part: `failed` for a provider error (final, never retried), `truncated` at the output
 * limit (markup still open then is a call cut off: `truncated-call`).
 */
function finishPart<P extends { readonly reason: string }>(part: P): NormalizedPart<P> {
  if (part.reason === "error") return { type: "finish", raw: part, failed: true }
  return part.reason === "length"
    ? { type: "finish", raw: part, truncated: true }
    : { type: "finish", raw: part }
}

function toolCall<P extends Response.ToolCallPart<string, unknown>>(part: P): NormalizedPart<P> {
  const params = paramsText(part.params)
  return params === undefined
    ? { type: "tool-call", toolName: part.name, raw: part }
    : { type: "tool-call", toolName: part.name, params, raw: part }
}

function paramsText(params: unknown): string | undefined {
  if (typeof params === "string") return params
  try {
    return JSON.stringify(params)
  } catch {
    return undefined
  }
}

type Usage = Response.Usage

/** The usage of two attempts, summed (`@tool-rescue/recovery`'s rule), as Effect's class. */
const addUsage = (a: Usage, b: Usage): Usage => new Response.Usage(sumUsage(a, b))

/** The usage of the discarded attempts, added to the final `finish` part. */
function withDiscarded<P extends Response.AnyPart>(part: P, discarded: Usage | undefined): P {
  if (discarded === undefined || part.type !== "finish") return part
  return { ...part, usage: addUsage(discarded, part.usage) }
}

function sumDiscarded(
  total: Usage | undefined,
  discarded: ReadonlyArray<Response.AnyPart>,
): Usage | undefined {
  let sum = total
  for (const raw of discarded) {
    // Only a `finish` part carries usage.
    const usage = raw.type === "finish" ? raw.usage : undefined
    if (usage instanceof Response.Usage) sum = sum === undefined ? usage : addUsage(sum, usage)
  }
  return sum
}

/** The part with its block id renamed, when it names a text or reasoning block; else the part. */
function renameBlock<P extends Response.AnyPart>(part: P, rename: (id: string) => string): P {
  const id = blockId(part)
  return id === undefined ? part : { ...part, id: rename(id) }
}

/** The id of a part that names a text or reasoning block (tool-params ids are tool call ids). */
function blockId(part: Response.AnyPart): string | undefined {
  switch (part.type) {
    case "text-start":
    case "text-delta":
    case "text-end":
    case "reasoning-start":
    case "reasoning-delta":
    case "reasoning-end":
      return part.id
    default:
      return undefined
  }
}

/**
 * Maps what `runTurn` yields back to Effect stream parts, for one turn:
 * - a text or reasoning piece becomes a delta of its block (the very part when it is whole);
 * - a retry's text and reasoning blocks get the retry's ids (`retryId`), so that the consumer
 *   sees well-formed, distinct blocks;
 * - a retry's parts carry the turn's recovery count (`recoveriesBefore` plus the round), which
 *   the history keeps for the next call of the turn (see `turn-mark.ts`);
 * - the usage of discarded attempts is added to the final `finish`, so the turn's usage is what
 *   was billed.
 */
export function makeStreamSplicer(
  recoveriesBefore: number,
): (part: OutputPart<StreamPart>) => StreamPart | undefined {
  let round = 0
  let discarded: Usage | undefined
  let lastBlock = "0"

  const retried = (part: StreamPart): StreamPart => {
    if (round === 0) return part
    return renameBlock(markTurn(part, recoveriesBefore + round), (id) => retryId(id, round))
  }

  return (part) => {
    switch (part.type) {
      case "attempt-start":
        round = part.round
        discarded = sumDiscarded(discarded, part.discarded)
        return undefined
      case "text":
      case "reasoning": {
        const raw = part.raw
        const type = part.type === "text" ? "text-delta" : "reasoning-delta"
        if (raw !== undefined && raw.type === type && raw.delta === part.text) return retried(raw)
        if (part.text.length === 0) return undefined
        const id = part.id ?? (raw === undefined ? undefined : blockId(raw)) ?? lastBlock
        lastBlock = id
        const metadata = raw?.metadata ?? {}
        return retried(Response.makePart(type, { id, delta: part.text, metadata }))
      }
      case "finish":
        return withDiscarded(part.raw, discarded)
      case "tool-call":
      case "other":
        lastBlock = blockId(part.raw) ?? lastBlock
        return retried(part.raw)
      default:
        return part satisfies never
    }
  }
}

/**
 * Collects what `runTurn` yields for a `generateText` turn back into response content: the
 * pieces of one text (or reasoning) part are joined into one part again, a part that was all
 * markup disappears, and the usage of discarded attempts is added to the final `finish`. Nothing
 * was shown yet, so a malformed attempt leaves nothing in the content (its prose included) but
 * what `keep` says the framework did before the model call (the results of approvals it
 * resolved, which the retry does not repeat); a retry's parts carry the turn's recovery count.
 */
export function makeContentCollector(
  recoveriesBefore: number,
  keep: (part: ContentPart) => boolean,
): {
  readonly push: (part: OutputPart<ContentPart>) => void
  readonly content: () => Array<ContentPart>
} {
  type Piece = { readonly raw: ContentPart; readonly pieces: string[] }
  let content: Array<ContentPart | Piece> = []
  let open: Piece | undefined
  let discarded: Usage | undefined
  let round = 0
  const retried = (part: ContentPart): ContentPart =>
    round === 0 ? part : markTurn(part, recoveriesBefore + round)
  return {
    push(part) {
      switch (part.type) {
        case "attempt-start":
          discarded = sumDiscarded(discarded, part.discarded)
          round = part.round
          open = undefined
          content = content.filter((item): item is ContentPart => !("pieces" in item) && keep(item))
          return
        case "text":
        case "reasoning": {
          const raw = part.raw ?? Response.makePart(part.type, { text: "" })
          if (open === undefined || open.raw !== raw) {
            open = { raw, pieces: [] }
            content.push(open)
          }
          open.pieces.push(part.text)
          return
        }
        case "finish":
          open = undefined
          content.push(withDiscarded(part.raw, discarded))
          return
        case "tool-call":
        case "other":
          open = undefined
          content.push(retried(part.raw))
          return
        default:
          return part satisfies never
      }
    },
    content() {
      const parts: ContentPart[] = []
      for (const item of content) {
        if (!("pieces" in item)) {
          parts.push(item)
          continue
        }
        const text = item.pieces.join("")
        if (text.length === 0) continue
        // Forced: `normalizeContent` makes text pieces of text and reasoning parts only.
        const raw = item.raw as Response.TextPart | Response.ReasoningPart
        const whole = raw.text === text ? raw : Response.makePart(raw.type, { text, metadata: raw.metadata })
        parts.push(retried(whole))
      }
      return parts
    },
  }
}
