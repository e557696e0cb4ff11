import type { RecoveryEvent, RecoveryOptions } from "./types.ts"

/**
 * Sends `event` to `options.onEvent`. A listener that throws is ignored: logging and metrics
 * must never break a turn. Internal: the turn planner and the turn raise every event through it.
 *
 * @example
 * ```ts
 * import { emitEvent } from "./emit-event.ts"
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
 * Why recovery was skipped for a request (`planTurn`'s skip rules). The well-known reasons are
 * listed; an adapter may pass its own string as `unsupported`.
 *
 * @example
 * ```ts
 * import type { RecoverySkipReason } from "@tool-rescue/recovery"
 *
 * const reason: RecoverySkipReason = "no-tools"
 * ```
 */
export type RecoverySkipReason = "no-tools" | "tool-choice-none" | "multiple-choices" | (string & {})
