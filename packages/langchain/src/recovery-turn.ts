import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager"
import type { BaseMessage } from "@langchain/core/messages"
import { isToolCallRecoveryError, type NormalizedPart, type OutputPart, runTurn } from "@tool-rescue/recovery"
import {
  planTurn,
  type ResolvedRecoveryOptions,
  recallTurn,
  type TurnMemory,
  turnKey,
} from "@tool-rescue/recovery/adapter"
import { retryMessages } from "./retry-messages.ts"
import { readTurnMark } from "./turn-mark.ts"
import { turnRequest } from "./turn-request.ts"

/** The options of a wrapped model, resolved (validated once, when wrapping). */
export interface RecoverySettings {
  readonly resolved: ResolvedRecoveryOptions
  /**
   * The turns of this model that ended without an answer, by their content: a client that runs a
   * failed call again (`.withRetry()`, which retries every error whatever its mark, or a retry
   * loop of its own) gets the error it ended with, or the budget it spent, never a fresh one.
   */
  readonly memory?: TurnMemory | undefined
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
  const { memory } = settings
  const recalled =
    memory === undefined ? undefined : recallTurn(memory, () => turnKey(callContent(messages, request.tools)))
  if (recalled?.error !== undefined)
    return { parts: finalErrors(failed(recalled.error), () => true), recoveriesBefore: 0 }
  const recoveriesBefore = readTurnMark(messages) + (recalled?.spent ?? 0)
  const plan = planTurn(settings.resolved, { ...request, recoveriesBefore, model })
  if (plan.kind === "skip") return undefined
  let retried = false
  const run = runTurn<Raw>(plan, {
    signal: options.signal,
    streaming,
    attempt: (round, context) => {
      // Counted as it starts: a retry that then fails (at the provider, say) is spent all the same.
      if (round > 0) retried = true
      return attempt(
        context.instruction === undefined
          ? messages
          : retryMessages(messages, context.instruction, plan.placement),
        { ...options, signal: context.signal },
      )
    },
  })
  const parts = recalled === undefined ? run : recalled.record(run)
  return { parts: finalErrors(parts, () => retried), recoveriesBefore: plan.recoveriesBefore }
}

/**
 * What a re-run of a call repeats, for its {@link turnKey}: each message's kind, content and
 * tool calls (not its ids or metadata: a string input becomes a new message with a new id on
 * every run), and the bound tools.
 */
function callContent(messages: readonly BaseMessage[], tools: readonly string[]): unknown {
  return {
    tools,
    messages: messages.map((message) => {
      const { tool_calls: calls, tool_call_id: callId } = message as {
        tool_calls?: unknown
        tool_call_id?: unknown
      }
      return [message.type, message.content, calls ?? null, callId ?? null]
    }),
  }
}

/** Parts that end at once with `error`: a re-run of a turn that ended with it. */
function failed<Part>(error: unknown): AsyncGenerator<Part, void, undefined> {
  return (async function* (): AsyncGenerator<Part, void, undefined> {
    yield* []
    throw error
  })()
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
