import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager"
import type { BaseMessage } from "@langchain/core/messages"
import { isToolCallRecoveryError, type NormalizedPart, type OutputPart, runTurn } from "@tool-rescue/recovery"
import { planTurn, type ResolvedRecoveryOptions } from "@tool-rescue/recovery/adapter"
import { retryMessages } from "./retry-messages.ts"
import { readTurnMark } from "./turn-mark.ts"
import { turnRequest } from "./turn-request.ts"

/** The options of a wrapped model, resolved (validated once, when wrapping). */
export interface RecoverySettings {
  readonly resolved: ResolvedRecoveryOptions
  /**
   * One model call's record across its re-runs (an agent middleware that retries it, such as
   * `modelRetryMiddleware`): the retries it spent, which a re-run may not spend again.
   */
  readonly ledger?: TurnLedger | undefined
}

/** What one model call spent, kept while something outside may run it again. */
export interface TurnLedger {
  /** Retries (rounds after the first) the call's runs started. */
  spent: number
  /** The error recovery ended the call with (`repeated-markup`…): a re-run gets it again. */
  error?: unknown
}

/** Parsed call options, as `_generate` and `_streamResponseChunks` receive them. */
export type CallOptions = Readonly<Record<string, unknown>> & { readonly signal?: AbortSignal }

/**
 * One model call, and the options the model has bound to itself. `ChatOpenAI` (and the models
 * built on it) keeps what `bindTools` bound in `defaultOptions` and merges it only inside its own
 * methods, so a call reached through `streamEvents` carries no `tools` in its options.
 */
export interface ModelCall {
  readonly messages: BaseMessage[]
  readonly options: CallOptions
  readonly bound: unknown
  /** The model's name (`model` or `modelName` of the chat model), for the failed responses. */
  readonly model?: string | undefined
}

/** One attempt of the call: the original messages, or a retry's, with the turn's signal. */
export type Attempt<Raw> = (
  messages: BaseMessage[],
  options: CallOptions,
) => AsyncIterable<NormalizedPart<Raw>>

/** A call that recovery runs. */
export interface RecoveryTurn<Raw> {
  readonly parts: AsyncIterable<OutputPart<Raw>>
  /** Recoveries the user turn had made before this call (the mark adds this call's). */
  readonly recoveriesBefore: number
}

/**
 * Plans one model call with `recovery`'s `planTurn` (skip rules, the turn's budget from the
 * history's marks) and runs it through `runTurn`; `undefined` when the call is skipped (the
 * planner reported `recovery-skipped`; the caller then calls the model as is). A retry sends the
 * original messages plus the instruction, with the same call options and the turn's signal.
 * `streaming`: the parts are shown as they come (`runTurn`'s `streaming`: a retry continues after
 * what an abandoned attempt showed).
 */
export function recoveryTurn<Raw>(
  settings: RecoverySettings,
  { messages, options, bound, model }: ModelCall,
  attempt: Attempt<Raw>,
  streaming = false,
): RecoveryTurn<Raw> | undefined {
  const request = turnRequest(
    typeof bound === "object" && bound !== null ? { ...bound, ...options } : options,
  )
  const { ledger } = settings
  const recoveriesBefore = readTurnMark(messages) + (ledger?.spent ?? 0)
  const plan = planTurn(settings.resolved, { ...request, recoveriesBefore, model })
  if (plan.kind === "skip") return undefined
  let retried = false
  const parts = runTurn<Raw>(plan, {
    signal: options.signal,
    streaming,
    attempt: (round, context) => {
      // Counted as it starts: a retry that then fails (at the provider, say) is spent all the same.
      if (round > 0) retried = true
      if (round > 0 && ledger !== undefined) ledger.spent++
      return attempt(
        context.instruction === undefined
          ? messages
          : retryMessages(messages, context.instruction, plan.placement),
        { ...options, signal: context.signal },
      )
    },
  })
  return { parts: finalErrors(parts, () => retried), recoveriesBefore: plan.recoveriesBefore }
}

/** LangChain's retryability mark (`stampRetryable` of `@langchain/core/errors`, core ≥ 1.4). */
const RETRYABLE = Symbol.for("langchain.errors.retryable")

/**
 * `parts`, with the errors that end the call marked not retryable: recovery's own errors, and any
 * error once a retry started (the retry's provider error is final). `modelRetryMiddleware` and
 * other LangChain retries read the mark; unmarked, they ran the whole call again, its first
 * request and a fresh budget included.
 */
function finalErrors<Part>(parts: AsyncGenerator<Part>, retried: () => boolean): AsyncIterable<Part> {
  const stamp = (error: unknown): never => {
    if ((isToolCallRecoveryError(error) || retried()) && typeof error === "object" && error !== null)
      Reflect.defineProperty(error, RETRYABLE, { value: false, configurable: true })
    throw error
  }
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => parts.next().then(undefined, stamp),
      return: (value?: unknown) => parts.return(value as never),
    }),
  }
}

/**
 * The run manager handed to the wrapped model's own `_generate` / `_streamResponseChunks`: the
 * same run (tracing, `handleLLMEnd`, errors) except `handleLLMNewToken`, which the adapter sends
 * itself for the visible chunks only. A model reports every raw token through it, and LangGraph's
 * `streamMode: "messages"` and `streamEvents` read those tokens: the markup would reach the
 * screen through them.
 */
export function mutedTokens(
  runManager: CallbackManagerForLLMRun | undefined,
): CallbackManagerForLLMRun | undefined {
  if (runManager === undefined) return undefined
  return Object.create(runManager, {
    handleLLMNewToken: { value: async () => undefined },
  }) as CallbackManagerForLLMRun
}
