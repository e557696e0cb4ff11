/**
 * The recoveries left in one user turn.
 *
 * NOTE: the per-turn budget belongs in `recovery`'s turn planner (DESIGN.md); this is the one
 * place the LangChain adapter keeps it until the planner lands. A wrapped model's turn is one
 * model call (a fresh budget per call); under {@link toolCallRecoveryMiddleware} the turn is the
 * agent invocation, so every model call of the invocation draws from one budget.
 */
export interface TurnBudget {
  /** Corrected responses still allowed in the turn. */
  readonly remaining: number
  /** One retry was started. */
  spend(): void
}

/** A budget of `max` recoveries. */
export function createTurnBudget(max: number): TurnBudget {
  let used = 0
  return {
    get remaining() {
      return Math.max(0, max - used)
    },
    spend() {
      used++
    },
  }
}
