import type { FormatId, Markup } from "@tool-rescue/detector"
import type { ToolCallRecoveryErrorCode } from "./types.ts"

/**
 * One markup as the error reports it: enough to log and to tell the user what the model wrote,
 * without the text itself.
 *
 * @example
 * ```ts
 * import type { MarkupSummary } from "@tool-rescue/recovery"
 *
 * const line = (m: MarkupSummary) => `round ${m.round}: ${m.format} ${m.toolName ?? "?"}`
 * ```
 */
export interface MarkupSummary {
  /** The round whose response held the markup (0 = the original request). */
  readonly round: number
  readonly format: FormatId
  readonly toolName: string | undefined
  readonly inReasoning: boolean
  readonly complete: boolean
}

/**
 * What {@link ToolCallRecoveryError}'s constructor takes.
 *
 * @example
 * ```ts
 * import type { ToolCallRecoveryErrorInit } from "./tool-call-recovery-error.ts"
 *
 * const init: ToolCallRecoveryErrorInit = { code: "aborted", rounds: 2, markup: [] }
 * ```
 */
export interface ToolCallRecoveryErrorInit {
  readonly code: ToolCallRecoveryErrorCode
  /** Attempts made in the turn (1 = only the original request). */
  readonly rounds: number
  /**
   * Corrected responses earlier model calls of the same user turn already got (the request's
   * `recoveriesBefore`): the message counts the turn's attempts, not only this call's.
   */
  readonly recoveriesBefore?: number
  /** The recoverable markup of every malformed response of the turn, in order. */
  readonly markup: readonly MarkupSummary[]
  /** Why the request could not be retried at all (the plan's `noRetry`): the message says so. */
  readonly noRetry?: string | undefined
  /** The underlying error (a `persistFailed` rejection, an abort reason). */
  readonly cause?: unknown
  /** Replaces the generated message. */
  readonly message?: string
}

// Symbol.for: the same symbol in every copy of this package, so a second install (two versions
// in one node_modules tree, or a bundled copy) still recognises our errors. `instanceof` cannot.
const brand: unique symbol = Symbol.for("@tool-rescue/recovery.ToolCallRecoveryError")

/**
 * The turn could not be recovered. `code` says why:
 * - `"repeated-markup"`: the model wrote a tool call as text again and no recovery is left
 *   (`maxRecoveries` retries were made);
 * - `"persist-failed"`: the `persistFailed` hook threw or rejected, so no retry was sent;
 * - `"aborted"`: the turn was cancelled through its `AbortSignal` while recovering;
 * - `"truncated-call"`: the model's tool call was cut off by the output limit (finish reason
 *   `length`) again and no recovery is left: its arguments are too long for the limit.
 *
 * Recognise it with {@link ToolCallRecoveryError.isInstance} (or {@link isToolCallRecoveryError}),
 * which works across duplicate installs; `instanceof` does not.
 *
 * @example
 * ```ts
 * import { ToolCallRecoveryError } from "@tool-rescue/recovery"
 *
 * try {
 *   // … consume the turn …
 * } catch (error) {
 *   if (ToolCallRecoveryError.isInstance(error) && error.code === "repeated-markup") {
 *     console.error(`${error.rounds} responses wrote tool calls as text`, error.markup)
 *   } else throw error
 * }
 * ```
 */
export class ToolCallRecoveryError extends Error {
  override readonly name: "ToolCallRecoveryError" = "ToolCallRecoveryError"
  readonly code: ToolCallRecoveryErrorCode
  readonly rounds: number
  readonly markup: readonly MarkupSummary[]

  constructor(init: ToolCallRecoveryErrorInit) {
    super(init.message ?? describe(init), init.cause === undefined ? undefined : { cause: init.cause })
    // Not a class field: a computed symbol member cannot be declared under isolatedDeclarations,
    // and non-enumerable keeps it out of logs and JSON.
    Object.defineProperty(this, brand, { value: true })
    this.code = init.code
    this.rounds = init.rounds
    this.markup = init.markup
  }

  /**
   * Always `false`: sending the same request again cannot help (the turn's recoveries are spent,
   * and the wrappers answer a re-run of the turn with this error, with no request). For retry
   * helpers that read the common `isRetryable` flag (as the AI SDK's `APICallError` and Effect's
   * `AiError` carry it). A getter on the prototype: it stays out of logs and JSON.
   *
   * @example
   * ```ts
   * import { ToolCallRecoveryError } from "@tool-rescue/recovery"
   *
   * const shouldRetry = (e: unknown) => (e as { isRetryable?: boolean }).isRetryable ?? true
   * shouldRetry(new ToolCallRecoveryError({ code: "repeated-markup", rounds: 2, markup: [] })) // false
   * ```
   */
  get isRetryable(): false {
    return false
  }

  /**
   * True for a {@link ToolCallRecoveryError} from any copy of this package, and for a framework's
   * wrapper whose `cause` is one and that took its name or message (LangChain's `createAgent`
   * rejects with such a `MiddlewareError`, the OpenAI SDK's stream helpers with such an
   * `OpenAIError`): the wrapper gets its `code`, `rounds` and `markup`.
   *
   * @example
   * ```ts
   * import { ToolCallRecoveryError } from "@tool-rescue/recovery"
   *
   * const isRepeated = (e: unknown) => ToolCallRecoveryError.isInstance(e) && e.code === "repeated-markup"
   * ```
   */
  static isInstance(value: unknown): value is ToolCallRecoveryError {
    return branded(value) || adoptWrapper(value, 0)
  }
}

/**
 * Function form of {@link ToolCallRecoveryError.isInstance} (a framework's wrapper of ours
 * included), so what each framework hands the user passes the same guard.
 *
 * @example
 * ```ts
 * import { isToolCallRecoveryError } from "@tool-rescue/recovery"
 *
 * const code = (e: unknown) => (isToolCallRecoveryError(e) ? e.code : undefined)
 * ```
 */
export function isToolCallRecoveryError(value: unknown): value is ToolCallRecoveryError {
  return ToolCallRecoveryError.isInstance(value)
}

function branded(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as { [brand]?: unknown })[brand] === true
}

/** Wrappers in a row the guard follows (LangChain nests one per middleware): a bound for cycles. */
const MAX_WRAPPERS = 8

/**
 * A framework's wrapper that presents itself as our error: it holds ours as `cause` and took our
 * name or our message (LangChain's `createAgent` rethrows what a middleware throws as its
 * `MiddlewareError`, copying `name` and `message`; the OpenAI SDK's stream helpers reject with an
 * `OpenAIError` of the same message). It gets ours' `code`, `rounds`, `markup` and `isRetryable` (non-enumerable
 * getters, as the brand) so the guard's promise holds: the user reads `error.code` on what the
 * framework handed them. Left alone, and not ours, when any of those keys is already its own or
 * it cannot be extended (frozen).
 */
function adoptWrapper(value: unknown, depth: number): boolean {
  if (depth >= MAX_WRAPPERS || !(value instanceof Error)) return false
  const cause: unknown = value.cause
  if (!(cause instanceof Error) || !(value.name === cause.name || value.message === cause.message))
    return false
  if (!(branded(cause) || adoptWrapper(cause, depth + 1))) return false
  const ours = cause as ToolCallRecoveryError
  const keys = ["code", "rounds", "markup", "isRetryable"] as const
  if (keys.some((key) => Object.hasOwn(value, key)) || !Object.isExtensible(value)) return false
  for (const key of keys) Object.defineProperty(value, key, { get: () => ours[key], configurable: true })
  Object.defineProperty(value, brand, { value: true })
  return true
}

/**
 * The summary of one markup for a {@link ToolCallRecoveryError}.
 *
 * @example
 * ```ts
 * import { scan } from "@tool-rescue/detector"
 * import { summarizeMarkup } from "./tool-call-recovery-error.ts"
 *
 * const { markup } = scan('<tool_call>{"name": "bash", "arguments": {}}</tool_call>', { tools: ["bash"] })
 * const summary = markup.map((m) => summarizeMarkup(m, 0))
 * ```
 */
export function summarizeMarkup(markup: Markup, round: number): MarkupSummary {
  return {
    round,
    format: markup.format,
    toolName: markup.toolName,
    inReasoning: markup.inReasoning,
    complete: markup.complete,
  }
}

function describe(init: ToolCallRecoveryErrorInit): string {
  // The turn's attempts: a leak after a tool result, with the budget spent on an earlier call, is
  // the turn's second attempt although it is this call's first.
  const count = (init.recoveriesBefore ?? 0) + init.rounds
  const attempts = `${count} ${count === 1 ? "attempt" : "attempts"}`
  const found =
    init.markup.length === 0
      ? ""
      : ` (${init.markup.map((m) => `round ${m.round}: ${m.format} ${m.toolName ?? "<unnamed>"}`).join("; ")})`
  switch (init.code) {
    case "repeated-markup":
      if (init.noRetry !== undefined)
        return `The model wrote its tool call as text instead of a structured call; no action was taken, and it could not be retried: ${init.noRetry}${found}.`
      return `The model wrote its tool call as text instead of a structured call, ${count} of ${attempts}; no action was taken${found}.`
    case "persist-failed":
      return `The persistFailed hook failed, so the malformed response was not retried${found}.`
    case "aborted":
      return `The turn was aborted during tool-call recovery after ${attempts}${found}.`
    case "truncated-call":
      return `The model's tool call was cut off by the output limit, ${count} of ${attempts}; no action was taken: use shorter arguments or a larger output limit${found}.`
    default:
      return init.code satisfies never
  }
}
