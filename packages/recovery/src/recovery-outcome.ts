/**
 * What recovery made of a markup, as one name: the `tool_rescue.outcome` of the telemetry, the
 * `outcome` label of the proxy's `/metrics`, and the reverse of a `ToolCallRecoveryError` code.
 */
import { isToolCallRecoveryError } from "./tool-call-recovery-error.ts"
import type { RecoveryEvent, ToolCallRecoveryErrorCode } from "./types.ts"

/**
 * What a turn's recovery came to, as the `tool_rescue.outcome` attribute:
 * - `recovered`: a retry answered without recoverable markup;
 * - `repeated`: the turn ended with `repeated-markup`; `truncated`: with `truncated-call`;
 * - `persist-failed`, `aborted`: the turn ended with that error; `provider-error`: the retry's
 *   provider failed; `cancelled`: the consumer stopped reading during the recovery;
 * - `not-offered`, `in-reasoning`: markup kept as text because it names no offered tool, or is a
 *   rehearsal inside reasoning (never retried);
 * - `announced`: an announced-but-missing call was retried.
 *
 * @example
 * ```ts
 * import type { RecoveryOutcome } from "@tool-rescue/recovery/adapter"
 *
 * const alert = (outcome: RecoveryOutcome) => outcome === "repeated" || outcome === "truncated"
 * ```
 */
export type RecoveryOutcome =
  | "recovered"
  | "repeated"
  | "truncated"
  | "persist-failed"
  | "aborted"
  | "provider-error"
  | "cancelled"
  | "not-offered"
  | "in-reasoning"
  | "announced"

/**
 * The outcome one event settles, or `undefined` for events that settle none: a
 * `markup-detected` kept as text (`not-offered`, `in-reasoning`), an announced call's retry
 * (`announced`), the end of a recovery (`recovered`, `repeated`, `truncated`, …). The
 * `tool_rescue.outcomes` counter counts these; the proxy's `/metrics` reads the same.
 *
 * @example
 * ```ts
 * import { recoveryOutcome } from "@tool-rescue/recovery/adapter"
 *
 * recoveryOutcome({ type: "recovery-succeeded", round: 1 }) // "recovered"
 * ```
 */
export function recoveryOutcome(event: RecoveryEvent): RecoveryOutcome | undefined {
  switch (event.type) {
    case "markup-detected":
      switch (event.reason) {
        case "not-offered":
          return "not-offered"
        case "in-reasoning":
        case "in-reasoning-answer-follows":
          return "in-reasoning"
        default:
          return undefined
      }
    case "recovery-started":
      return event.announced === undefined ? undefined : "announced"
    case "recovery-succeeded":
      return "recovered"
    case "recovery-failed":
      return failedOutcome(event.error)
    case "recovery-skipped":
    case "unknown-tool-call":
      return undefined
    default:
      return event satisfies never
  }
}

/**
 * The outcome of a turn that ended with each {@link ToolCallRecoveryError} code: the one mapping
 * between the two, for a reader of the outcomes (a `/metrics` scraper) that reports codes. A
 * code added to `ToolCallRecoveryErrorCode` and missing here is a type error.
 *
 * @example
 * ```ts
 * import { errorCodeOutcomes } from "@tool-rescue/recovery/adapter"
 *
 * errorCodeOutcomes["repeated-markup"] // "repeated"
 * ```
 */
export const errorCodeOutcomes: Readonly<Record<ToolCallRecoveryErrorCode, RecoveryOutcome>> = {
  "repeated-markup": "repeated",
  "truncated-call": "truncated",
  "persist-failed": "persist-failed",
  aborted: "aborted",
}

function failedOutcome(error: unknown): RecoveryOutcome {
  return isToolCallRecoveryError(error) ? errorCodeOutcomes[error.code] : "provider-error"
}
