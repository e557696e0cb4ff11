import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager"
import type { BaseMessage } from "@langchain/core/messages"
import {
  type NormalizedPart,
  type OutputPart,
  reportSkipped,
  resolveRecoveryOptions,
  runTurn,
} from "@tool-rescue/recovery"
import type { ToolCallRecoveryOptions } from "./options.ts"
import { planCall } from "./plan-call.ts"
import { retryMessages } from "./retry-messages.ts"
import type { TurnBudget } from "./turn-budget.ts"

/** How a wrapped model recovers: the options, and where each call's budget comes from. */
export interface RecoverySettings {
  readonly options: ToolCallRecoveryOptions
  /** The budget of the turn a call belongs to. */
  readonly budget: () => TurnBudget
}

/**
 * One model call, and the options the model has bound to itself. `ChatOpenAI` (and the models
 * built on it) keeps what `bindTools` bound in `defaultOptions` and merges it only inside its own
 * methods, so a call reached through `streamEvents` carries no `tools` in its options.
 */
export interface ModelCall {
  readonly messages: BaseMessage[]
  readonly options: CallOptions
  readonly bound: unknown
}

/** Parsed call options, as `_generate` and `_streamResponseChunks` receive them. */
export type CallOptions = Readonly<Record<string, unknown>> & { readonly signal?: AbortSignal }

/** One attempt of the call: the original messages, or a retry's, with the turn's signal. */
export type Attempt<Raw> = (
  messages: BaseMessage[],
  options: CallOptions,
) => AsyncIterable<NormalizedPart<Raw>>

/**
 * Runs one model call through recovery's turn loop, or returns `undefined` when recovery does not
 * apply to it (a `recovery-skipped` event is reported; the caller then calls the model as is).
 * The malformed response is never added to `messages`: a retry sends the original messages plus
 * the instruction, with the same call options and the turn's signal.
 */
export function recoveryTurn<Raw>(
  settings: RecoverySettings,
  { messages, options, bound }: ModelCall,
  attempt: Attempt<Raw>,
): AsyncIterable<OutputPart<Raw>> | undefined {
  const plan = planCall(typeof bound === "object" && bound !== null ? { ...bound, ...options } : options)
  if (plan.kind === "skip") {
    reportSkipped(settings.options, plan.reason)
    return undefined
  }
  const budget = settings.budget()
  const { instructionPlacement } = resolveRecoveryOptions(settings.options)
  const parts = runTurn<Raw>({
    tools: plan.tools,
    signal: options.signal,
    options: { ...settings.options, maxRecoveries: budget.remaining },
    attempt: (_round, context) =>
      attempt(
        context.instruction === undefined
          ? messages
          : retryMessages(messages, context.instruction, instructionPlacement),
        { ...options, signal: context.signal },
      ),
  })
  return spending(parts, budget)
}

async function* spending<Raw>(
  parts: AsyncIterable<OutputPart<Raw>>,
  budget: TurnBudget,
): AsyncGenerator<OutputPart<Raw>> {
  for await (const part of parts) {
    if (part.type === "attempt-start") budget.spend()
    yield part
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
