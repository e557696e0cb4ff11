import { emitEvent, type RecoverySkipReason } from "./emit-event.ts"
import type { ResolvedRecoveryOptions } from "./resolve-options.ts"

/**
 * What an adapter reads from one model request, normalized, for {@link planTurn}.
 *
 * @example
 * ```ts
 * import type { TurnRequest } from "@tool-rescue/recovery/adapter"
 *
 * const request: TurnRequest = { tools: ["read_file"], toolChoice: "auto", recoveriesBefore: 0 }
 * ```
 */
export interface TurnRequest {
  /** Names of the tools offered in this request (after the framework's own filtering). */
  readonly tools: readonly string[]
  /**
   * The request's tool choice, by kind: `"none"` forbids tool calls, so a retry asking for a
   * structured call could only trade a leak for a violation. @defaultValue "auto"
   */
  readonly toolChoice?: "auto" | "none" | "required" | "tool" | undefined
  /**
   * A reason of the framework's own why a request cannot be recovered (chat `n > 1`: several
   * choices cannot be spliced into one retry; Responses `background` or `conversation`: the
   * server keeps the malformed output). Checked first.
   */
  readonly unsupported?: RecoverySkipReason | undefined
  /**
   * A reason of the framework's own why a malformed response cannot be retried although its
   * markup must still be withheld (Responses `conversation`: the server adds every response to
   * the conversation, so no retry could leave the malformed one out). The request is recovered
   * with no budget: a leak ends the turn with `repeated-markup`, whose message gives this reason.
   */
  readonly noRetry?: string | undefined
  /**
   * Recoveries already made earlier in this user turn, as the history carries them (see
   * {@link turnRecoveries}). @defaultValue 0
   */
  readonly recoveriesBefore?: number | undefined
  /** The model the request names, for the failed responses and the telemetry (when the framework knows it). */
  readonly model?: string | undefined
}

/**
 * The plan of one request: pass it through untouched (`skip`, with the reason the
 * `recovery-skipped` event carried), or run it with `runTurn(plan, input)` (`recover`: the
 * resolved options, the tools, the budget and where a retry's instruction goes, each worked out
 * once, here).
 *
 * @example
 * ```ts
 * import type { TurnPlan } from "@tool-rescue/recovery/adapter"
 *
 * const describe = (plan: TurnPlan): string =>
 *   plan.kind === "skip" ? `skipped: ${plan.reason}` : `${plan.budget} recoveries left`
 * ```
 */
export type TurnPlan = { readonly kind: "skip"; readonly reason: RecoverySkipReason } | RecoverPlan

/**
 * A plan that runs through `runTurn`: everything the turn reads from the options and the
 * request, resolved and checked once by {@link planTurn}.
 *
 * @example
 * ```ts
 * import { planTurn, resolveRecoveryOptions, type RecoverPlan } from "@tool-rescue/recovery/adapter"
 *
 * const plan = planTurn(resolveRecoveryOptions({}), { tools: ["bash"] })
 * const placement = (recover: RecoverPlan) => recover.placement
 * if (plan.kind === "recover") placement(plan) // "system"
 * ```
 */
export interface RecoverPlan {
  readonly kind: "recover"
  /** The options, resolved (defaults applied, values checked). */
  readonly options: ResolvedRecoveryOptions
  /** Names of the tools offered in this request. */
  readonly tools: readonly string[]
  /** Recoveries this request's turn already made (0 with `recoveryScope: "step"`). */
  readonly recoveriesBefore: number
  /** Corrected responses this request may still get: `maxRecoveries - recoveriesBefore`, at least 0. */
  readonly budget: number
  /** Where the adapter puts a retry's instruction (`options.instructionPlacement`). */
  readonly placement: "system" | "user"
  /** Why the request cannot be retried at all (its budget is then 0): the request's `noRetry`. */
  readonly noRetry?: string | undefined
  /** The model the request names, when the adapter knows it. */
  readonly model?: string | undefined
}

/**
 * The one planner every adapter calls for each model request (ARCHITECTURE.md#one-turn-end-to-end, "2. Plan"). It applies the skip rules, in order: the framework's `unsupported`
 * reason, `no-tools` (nothing offered: text is just text), `tool-choice-none`; a skipped request
 * is reported with a `recovery-skipped` event. Otherwise it sets the budget: `maxRecoveries`
 * counts **per user turn**, so the recoveries the history shows for this turn are spent already;
 * with `recoveryScope: "step"` every request gets the whole budget.
 *
 * The options are resolved once, where the adapter is configured (`resolveRecoveryOptions`, so
 * that a misconfiguration throws there): the plan carries them to `runTurn`, which checks
 * nothing again.
 *
 * A request with no budget left is still recovered (its markup is withheld): a malformed response
 * then ends the turn with `repeated-markup` and no retry request.
 *
 * @example
 * ```ts
 * import { planTurn, resolveRecoveryOptions } from "@tool-rescue/recovery/adapter"
 *
 * const options = resolveRecoveryOptions({ maxRecoveries: 1 })
 * planTurn(options, { tools: [] }) // { kind: "skip", reason: "no-tools" }
 * planTurn(options, { tools: ["bash"], toolChoice: "none" }) // { kind: "skip", reason: "tool-choice-none" }
 * planTurn(options, { tools: ["bash"], recoveriesBefore: 1 })
 * // { kind: "recover", options, tools: ["bash"], recoveriesBefore: 1, budget: 0, placement: "system" }
 * ```
 */
export function planTurn(options: ResolvedRecoveryOptions, request: TurnRequest): TurnPlan {
  const reason = skipReason(request)
  if (reason !== undefined) {
    emitEvent(options, { type: "recovery-skipped", reason })
    return { kind: "skip", reason }
  }
  const plan = recoverPlan(options, request.tools, request.recoveriesBefore, request.model)
  return request.noRetry === undefined ? plan : { ...plan, budget: 0, noRetry: request.noRetry }
}

/**
 * Internal: the plan of a turn that is run whatever the request (no skip rules), for
 * {@link planTurn} and `recoverToolCalls`. The one place the budget is computed: `maxRecoveries`
 * minus what earlier calls of the turn spent (nothing is spent with `recoveryScope: "step"`).
 */
export function recoverPlan(
  options: ResolvedRecoveryOptions,
  tools: readonly string[],
  recoveriesBefore: number | undefined,
  model?: string | undefined,
): RecoverPlan {
  if (!Array.isArray(tools) || !tools.every(isString)) {
    throw new TypeError("tool-rescue: tools must be an array of tool names")
  }
  const before = options.recoveryScope === "step" ? 0 : countOf(recoveriesBefore)
  return {
    kind: "recover",
    options,
    // A copy: the caller's array may change while the turn runs. `slice` makes it exact-size (a
    // request's names were pushed into an array with room to spare, and an open stream holds it).
    tools: tools.slice(),
    recoveriesBefore: before,
    budget: Math.max(0, options.maxRecoveries - before),
    placement: options.instructionPlacement,
    ...(typeof model === "string" ? { model } : {}),
  }
}

function isString(value: unknown): value is string {
  return typeof value === "string"
}

function skipReason(request: TurnRequest): RecoverySkipReason | undefined {
  if (request.unsupported !== undefined) return request.unsupported
  if (request.tools.length === 0) return "no-tools"
  if (request.toolChoice === "none") return "tool-choice-none"
  return undefined
}

function countOf(value: number | undefined): number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : 0
}

/**
 * How an adapter reads its framework's history for {@link turnRecoveries}.
 *
 * @example
 * ```ts
 * import type { HistoryReader } from "@tool-rescue/recovery/adapter"
 *
 * type Message = { role: string; recovered?: number }
 * const reader: HistoryReader<Message> = {
 *   startsTurn: (message) => message.role === "user",
 *   recoveries: (message) => message.recovered ?? 0,
 * }
 * ```
 */
export interface HistoryReader<Message> {
  /** The message is the user's: the turn starts after it. */
  readonly startsTurn: (message: Message) => boolean
  /**
   * The number of recoveries the turn had made when this message was produced, as the adapter
   * marked it on a recovered response (0 for any other message).
   */
  readonly recoveries: (message: Message) => number
}

/**
 * The recoveries already made in the current user turn, read from the request's history: the
 * largest mark on the messages after the last user message. The history is the turn boundary,
 * so no state is shared between requests: a framework that runs a turn as several model calls
 * (AI SDK steps, an `openai` `runTools` loop, an agent) sends each call the turn so far, and the
 * adapter marks a recovered response so that the mark comes back with it.
 *
 * @example
 * ```ts
 * import { turnRecoveries } from "@tool-rescue/recovery/adapter"
 *
 * const history = [
 *   { role: "user", recovered: 0 },
 *   { role: "assistant", recovered: 1 },
 *   { role: "tool", recovered: 0 },
 * ]
 * turnRecoveries(history, { startsTurn: (m) => m.role === "user", recoveries: (m) => m.recovered }) // 1
 * ```
 */
export function turnRecoveries<Message>(history: readonly Message[], reader: HistoryReader<Message>): number {
  let most = 0
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!
    if (reader.startsTurn(message)) break
    most = Math.max(most, countOf(reader.recoveries(message)))
  }
  return most
}
