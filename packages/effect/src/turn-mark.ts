import { type HistoryReader, turnMarkOf, turnRecoveries, withTurnMark } from "@tool-rescue/recovery/adapter"
import type { Prompt, Response } from "effect/ai"

/*
 * One recovery per user turn (ARCHITECTURE.md#the-turn-mark). In Effect a turn is one
 * `Chat` send, or an agent loop: the model calls after one user message, each sent the history so
 * far. No state is shared between those calls: the parts of a recovered response carry a mark in
 * their provider metadata, `Prompt.fromResponseParts` (and so `Chat`) keeps it as the options of
 * the history's parts, and the next call of the turn reads it back. Providers read only their own
 * key of the options, so the mark never reaches a model.
 */

/** Part types whose metadata carries the mark: what a recovered response puts into the history. */
const MARKED = new Set(["text", "text-start", "reasoning", "reasoning-start", "tool-call"])

/**
 * The part with the turn mark in its metadata (the turn had made `recoveries` recoveries), when
 * it is a part the history keeps (text, reasoning, tool calls); any other part unchanged.
 */
export function markTurn<P extends { readonly type: string; readonly metadata?: Response.ProviderMetadata }>(
  part: P,
  recoveries: number,
): P {
  if (!MARKED.has(part.type)) return part
  return { ...part, metadata: withTurnMark(part.metadata ?? {}, recoveries) }
}

const reader: HistoryReader<Prompt.Message> = {
  startsTurn: (message) => message.role === "user",
  recoveries: (message) => {
    if (message.role === "system") return 0
    let most = 0
    for (const part of message.content) most = Math.max(most, turnMarkOf(part.options))
    return most
  },
}

/** The recoveries the prompt's current user turn already made, as its marks say. */
export const readTurnMark = (prompt: Prompt.Prompt): number => turnRecoveries(prompt.content, reader)
