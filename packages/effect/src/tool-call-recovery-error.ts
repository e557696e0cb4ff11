import type { ToolCallRecoveryError, ToolCallRecoveryErrorCode } from "@tool-rescue/recovery"
import { AiError } from "effect/ai"

/** The module name of our `AiError`s. */
export const MODULE = "ToolCallRecovery"

/** The metadata key under which the reason of our `AiError` carries the recovery details. */
export const METADATA_KEY = "toolRescue"

/**
 * The `AiError` a recovery failure surfaces as: `module` is `"ToolCallRecovery"`, and the reason
 * is an `UnknownError` (never retryable, so an outer `Effect.retry({ while: (e) => e.isRetryable })`
 * does not call the model a third time). `reason.metadata.toolRescue` holds the `code`
 * (`"repeated-markup"` for a second malformed response, `"persist-failed"`, `"aborted"`), the
 * number of attempts and the markup found.
 *
 * @example
 * ```ts
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const code = (error: ToolCallRecovery.ToolCallRecoveryAiError) => error.reason.metadata.toolRescue?.code
 * ```
 */
export interface ToolCallRecoveryAiError extends AiError.AiError {
  readonly module: "ToolCallRecovery"
  readonly reason: AiError.UnknownError & {
    readonly metadata: { readonly toolRescue?: ToolCallRecoveryDetails }
  }
}

/**
 * What `reason.metadata.toolRescue` of a {@link ToolCallRecoveryAiError} holds.
 *
 * @example
 * ```ts
 * import type { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const repeated = (details: ToolCallRecovery.ToolCallRecoveryDetails) => details.code === "repeated-markup"
 * ```
 */
export interface ToolCallRecoveryDetails {
  readonly code: ToolCallRecoveryErrorCode
  /** Attempts made in the turn (1 = only the original request). */
  readonly rounds: number
  /** The recoverable markup of each malformed response, in order. */
  readonly markup: ReadonlyArray<{
    readonly round: number
    readonly format: string
    readonly toolName: string | null
    readonly inReasoning: boolean
    readonly complete: boolean
  }>
}

/**
 * True for the `AiError` that tool-call recovery fails with (a second malformed response, a
 * failing `persistFailed` hook, an abort during recovery). It is recognised by its `module`, so
 * errors from any copy of this package are recognised.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { isToolCallRecoveryError } from "@tool-rescue/effect"
 *
 * const program = LanguageModel.generateText({ prompt: "Read a.ts" }).pipe(
 *   Effect.catchIf(isToolCallRecoveryError, () => Effect.succeed(undefined)),
 * )
 * ```
 */
export function isToolCallRecoveryError(value: unknown): value is ToolCallRecoveryAiError {
  return AiError.isAiError(value) && value.module === MODULE && value.reason._tag === "UnknownError"
}

/** The `AiError` for a {@link ToolCallRecoveryError} thrown by `runTurn`. */
export function toAiError(error: ToolCallRecoveryError, method: string): ToolCallRecoveryAiError {
  // Inferred, not annotated: an object literal's type is JSON metadata as it stands, an
  // interface's is not (it has no index signature).
  const details = {
    code: error.code,
    rounds: error.rounds,
    markup: error.markup.map((m) => ({
      round: m.round,
      format: m.format,
      toolName: m.toolName ?? null,
      inReasoning: m.inReasoning,
      complete: m.complete,
    })),
  } satisfies ToolCallRecoveryDetails
  return AiError.make({
    module: MODULE,
    method,
    reason: new AiError.UnknownError({
      description: error.message,
      metadata: { [METADATA_KEY]: details },
    }),
    // Forced: `AiError.make` types any module and reason; ours are the literal module and an
    // `UnknownError` holding the details.
  }) as ToolCallRecoveryAiError
}
