/**
 * What became of each markup of a turn: the one rule by which recovery's `tool_rescue.outcomes`
 * counter (`turn-telemetry.ts`) and the proxy's `tool_rescue_proxy_leaks_total` count, so a
 * dashboard of either reads the same numbers.
 */
import type { FormatId } from "@tool-rescue/detector"
import { type RecoveryOutcome, recoveryOutcome } from "./recovery-outcome.ts"
import type { RecoveryEvent } from "./types.ts"

/**
 * One turn's markup outcomes: feed it the turn's events, then `end()` once the turn is over.
 *
 * @example
 * ```ts
 * import { createMarkupOutcomes, type MarkupOutcomes } from "@tool-rescue/recovery/adapter"
 *
 * const outcomes: MarkupOutcomes = createMarkupOutcomes((format, outcome) => console.log(format, outcome))
 * ```
 */
export interface MarkupOutcomes {
  /** Reads one event of the turn; counts every markup it settles. */
  record(event: RecoveryEvent): void
  /**
   * The turn is over. Recoverable markup still unsettled (the consumer stopped reading during
   * the retry) counts as `cancelled`. A host that cannot tell a turn's end need not call it.
   */
  end(): void
}

/**
 * Counts each markup of one turn once, with what recovery made of it, through `count`:
 * - markup kept as text (`not-offered`, `in-reasoning`) when it is detected;
 * - markup a retry is spent on (`recoverable`, also `unknown-tool` under
 *   `unknownToolMarkup: "retry"`) when the turn's recovery ends, each with that end's outcome (`recovered`,
 *   `repeated`, `truncated`, `persist-failed`, `aborted`, `provider-error`): a turn that leaked
 *   in two rounds before its retry answered counts two `recovered`;
 * - nothing for an announced-but-missing call (no markup was written as text), nor does its
 *   retry settle the markup waiting for the turn's end; count it from `recovery-started`'s
 *   `announced` where wanted.
 *
 * @example
 * ```ts
 * import { createMarkupOutcomes } from "@tool-rescue/recovery/adapter"
 *
 * const counts = new Map<string, number>()
 * const outcomes = createMarkupOutcomes((format, outcome) => {
 *   const key = `${format}/${outcome}`
 *   counts.set(key, (counts.get(key) ?? 0) + 1)
 * })
 * // Pass `outcomes.record` as the turn's `onEvent`; when the turn is over:
 * outcomes.end()
 * ```
 */
export function createMarkupOutcomes(
  count: (format: FormatId, outcome: RecoveryOutcome) => void,
): MarkupOutcomes {
  // Formats of recoverable markup whose outcome the recovery's end decides, in detection order.
  const pending: FormatId[] = []
  let ended = false
  const settle = (outcome: RecoveryOutcome) => {
    for (const format of pending) count(format, outcome)
    pending.length = 0
  }
  return {
    record(event) {
      if (ended) return
      switch (event.type) {
        case "markup-detected": {
          // `recoverable`: a retry is spent on it (reason `recoverable`, or `unknown-tool` under
          // `unknownToolMarkup: "retry"`), so the retry's end is its outcome.
          if (event.recoverable) {
            pending.push(event.markup.format)
            return
          }
          const kept = recoveryOutcome(event)
          if (kept !== undefined) count(event.markup.format, kept)
          return
        }
        case "recovery-succeeded":
        case "recovery-failed":
          settle(recoveryOutcome(event) ?? "provider-error")
          return
        case "recovery-started":
        case "recovery-skipped":
        case "unknown-tool-call":
          return
        default:
          event satisfies never
      }
    },
    end() {
      if (ended) return
      ended = true
      settle("cancelled")
    },
  }
}
