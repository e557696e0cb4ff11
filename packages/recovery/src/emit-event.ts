import type { RecoveryEvent, RecoveryOptions } from "./types.ts"

/**
 * Sends `event` to `options.onEvent`. A listener that throws is ignored: logging and metrics
 * must never break a turn. Adapters use it for the events they raise themselves
 * (`unknown-tool-call`, `recovery-skipped`).
 *
 * @example
 * ```ts
 * import { emitEvent } from "@tool-rescue/recovery"
 *
 * emitEvent({ onEvent: (e) => console.log(e.type) }, { type: "unknown-tool-call", toolName: "rm", params: "{}" })
 * ```
 */
export function emitEvent(
  options: { readonly onEvent?: RecoveryOptions["onEvent"] | undefined } | undefined,
  event: RecoveryEvent,
): void {
  const listener = options?.onEvent
  if (listener === undefined) return
  try {
    listener(event)
  } catch {
    // Swallowed on purpose: see the TSDoc above.
  }
}

/**
 * Why an adapter skipped recovery for a request. The well-known reasons are listed; an adapter
 * may report its own string.
 *
 * @example
 * ```ts
 * import type { RecoverySkipReason } from "@tool-rescue/recovery"
 *
 * const reason: RecoverySkipReason = "no-tools"
 * ```
 */
export type RecoverySkipReason = "no-tools" | "tool-choice-none" | "multiple-choices" | (string & {})

/**
 * Reports that recovery does not apply to a request (no tools offered, `tool_choice: "none"`,
 * `n > 1`, …) with a `recovery-skipped` event. The adapter then passes the response through
 * without calling {@link runTurn}.
 *
 * @example
 * ```ts
 * import { reportSkipped } from "@tool-rescue/recovery"
 *
 * const options = { onEvent: (e: unknown) => console.log(e) }
 * const tools: string[] = []
 * if (tools.length === 0) reportSkipped(options, "no-tools")
 * ```
 */
export function reportSkipped(
  options: { readonly onEvent?: RecoveryOptions["onEvent"] | undefined } | undefined,
  reason: RecoverySkipReason,
): void {
  emitEvent(options, { type: "recovery-skipped", reason })
}
