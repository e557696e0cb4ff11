import type { LanguageModelV4Prompt, SharedV4ProviderMetadata } from "@ai-sdk/provider"
import { turnMarkOf, turnRecoveries, withTurnMark } from "@tool-rescue/recovery/adapter"

/*
 * The turn mark in the AI SDK: provider metadata. The AI SDK copies a response part's
 * `providerMetadata` into the `providerOptions` of that part in the next step's prompt (and in
 * `response.messages`), so the mark comes back with the turn's history: no state is kept
 * between model calls. Providers read only their own key, so the mark is never sent on.
 */

type Message = LanguageModelV4Prompt[number]

/** `metadata` of a part of a recovered response, with the turn mark: the turn had made `recoveries` recoveries. */
export function markTurn(
  metadata: SharedV4ProviderMetadata | undefined,
  recoveries: number,
): SharedV4ProviderMetadata {
  return withTurnMark(metadata ?? {}, recoveries)
}

/**
 * The recoveries the current user turn already made, read from the step's prompt: the marks on
 * the assistant messages after the last user message (the steps of one `generateText` /
 * `streamText`, and a continuation after a tool approval).
 */
export function readTurnMark(prompt: LanguageModelV4Prompt): number {
  return turnRecoveries(prompt, { startsTurn: (message) => message.role === "user", recoveries: messageMark })
}

function messageMark(message: Message): number {
  if (message.role !== "assistant") return 0
  let most = 0
  for (const part of message.content) most = Math.max(most, turnMarkOf(part.providerOptions))
  return most
}
