import type { LanguageModelV4Prompt, SharedV4ProviderMetadata } from "@ai-sdk/provider"
import { turnRecoveries } from "@tool-rescue/recovery/adapter"

/**
 * The provider-metadata key of the turn mark. The AI SDK copies a response part's
 * `providerMetadata` into the `providerOptions` of that part in the next step's prompt (and in
 * `response.messages`), so the mark comes back with the turn's history: no state is kept
 * between model calls. Providers read only their own key, so the mark is never sent on.
 */
export const MARK_KEY = "toolRescue"

type Message = LanguageModelV4Prompt[number]

function markOf(options: unknown): number {
  if (typeof options !== "object" || options === null) return 0
  const mark = (options as Record<string, unknown>)[MARK_KEY]
  if (typeof mark !== "object" || mark === null) return 0
  const recoveries = (mark as Record<string, unknown>).recoveries
  return typeof recoveries === "number" ? recoveries : 0
}

function messageRecoveries(message: Message): number {
  if (message.role !== "assistant") return 0
  let most = 0
  for (const part of message.content) most = Math.max(most, markOf(part.providerOptions))
  return most
}

/**
 * The recoveries the current user turn already made, read from the step's prompt: the marks on
 * the assistant messages after the last user message (the steps of one `generateText` /
 * `streamText`, and a continuation after a tool approval).
 */
export function promptRecoveries(prompt: LanguageModelV4Prompt): number {
  return turnRecoveries(prompt, {
    startsTurn: (message) => message.role === "user",
    recoveries: messageRecoveries,
  })
}

/** `metadata` with the turn mark: the turn had made `recoveries` recoveries when the part was produced. */
export function withRecoveryMark(
  metadata: SharedV4ProviderMetadata | undefined,
  recoveries: number,
): SharedV4ProviderMetadata {
  return { ...metadata, [MARK_KEY]: { recoveries } }
}
