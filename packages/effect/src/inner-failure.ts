import type { Cause } from "effect"

/**
 * A failure of the inner `LanguageModel` service, carried through `runTurn` (which rethrows it
 * unchanged) so that the decorated service fails with the very same cause.
 */
export class InnerFailure {
  readonly cause: Cause.Cause<unknown>
  constructor(cause: Cause.Cause<unknown>) {
    this.cause = cause
  }
}
