/**
 * Public types of `@tool-rescue/recovery`: the normalized part model every adapter maps to and
 * from, the options, the events and the failed-response record. This file is the contract the
 * adapters (`ai-sdk`, `openai`, `effect`) are written against.
 */
import type { FormatId, Markup, Policy } from "@tool-rescue/detector"
import type { MarkupReason } from "./markup-reason.ts"

/**
 * A part of one model attempt, normalized. `Raw` is the adapter's own part type: it rides along
 * so the adapter can map the part back without loss.
 *
 * For `text` and `reasoning` parts the `text` field is authoritative: {@link runTurn} may yield a
 * part whose `text` is a piece of the original (markup withheld, held-back text released later)
 * while `raw` is still the original part. A part that passes through whole is yielded as the very
 * object the attempt produced.
 *
 * @example
 * ```ts
 * import type { NormalizedPart } from "@tool-rescue/recovery"
 *
 * type Chunk = { kind: string; content?: string }
 * const toNormalized = (chunk: Chunk): NormalizedPart<Chunk> =>
 *   chunk.kind === "content" && chunk.content !== undefined
 *     ? { type: "text", text: chunk.content, raw: chunk }
 *     : { type: "other", raw: chunk }
 * ```
 */
export type NormalizedPart<Raw = unknown> =
  /** Visible answer text. `id` is the adapter's text-block id, when it has one. */
  | { readonly type: "text"; readonly text: string; readonly id?: string; readonly raw?: Raw }
  /** Reasoning text (scanned under the reasoning policy; never withheld from the consumer unless it holds markup). */
  | { readonly type: "reasoning"; readonly text: string; readonly id?: string; readonly raw?: Raw }
  /**
   * A structured tool call produced by the provider (never built from text). `params` is the
   * provider's original argument text, when the adapter has it: it is used for the
   * `unknown-tool-call` event.
   */
  | { readonly type: "tool-call"; readonly toolName: string; readonly params?: string; readonly raw: Raw }
  /**
   * The end of the attempt, usually with usage and a finish reason inside `raw`. `failed`: the
   * provider ended the attempt with an error (e.g. the AI SDK's finish reason `error`).
   * `truncated`: the provider stopped at the output limit (finish reason `length`,
   * `max_tokens`, `max_output_tokens`): markup still open then is a call cut off, not a format
   * mistake (`truncated-call`).
   */
  | { readonly type: "finish"; readonly raw: Raw; readonly failed?: boolean; readonly truncated?: boolean }
  /**
   * Anything else: passed through untouched, in order. `failed`: the part is a provider error
   * reported inside the stream (an `{"error": …}` chunk, malformed SSE JSON, a stream cut
   * without a finish): the attempt is final and never retried (ARCHITECTURE.md#policy,
   * "What is final").
   */
  | { readonly type: "other"; readonly raw: Raw; readonly failed?: boolean }

/**
 * What {@link runTurn} yields to the adapter: the parts the consumer should see, plus attempt
 * boundaries.
 *
 * @example
 * ```ts
 * import type { OutputPart } from "@tool-rescue/recovery"
 *
 * const describe = (part: OutputPart): string =>
 *   part.type === "attempt-start" ? `retry ${part.round}` : part.type
 * ```
 */
export type OutputPart<Raw = unknown> =
  | NormalizedPart<Raw>
  /**
   * A retry attempt starts (round ≥ 1); adapters use it to renumber ids when splicing streams.
   * `discarded` holds the `raw` of the `finish` part(s) of the malformed attempt, which are never
   * yielded (adapters that sum usage over the turn add them here).
   */
  | { readonly type: "attempt-start"; readonly round: number; readonly discarded: readonly Raw[] }

/**
 * The context an instruction function receives.
 *
 * @example
 * ```ts
 * import type { InstructionContext } from "@tool-rescue/recovery"
 *
 * const instruction = (context: InstructionContext): string =>
 *   `Round ${context.round}: call ${context.tools.join(", ")} with the structured tool-call format.`
 * ```
 */
export interface InstructionContext {
  /** 1 for the first retry. */
  readonly round: number
  /** The markup that caused the retry. */
  readonly markup: readonly Markup[]
  /** The tools offered this turn. */
  readonly tools: readonly string[]
  /**
   * The markup was cut off by the output limit (the attempt ended with `truncated` and an
   * envelope still open): the retry should ask for shorter arguments, not the structured format.
   */
  readonly truncated?: boolean
  /**
   * The answer announced this offered tool and made no call (`announcedCalls: "retry"`); `markup`
   * is then empty.
   */
  readonly announced?: string
  /**
   * The text of the discarded attempts the user already saw (a stream shows safe text at once),
   * its last 500 characters at most; absent when none was shown (nothing
   * before the markup, or a non-streamed turn, whose result drops it). The default instruction
   * quotes it and asks the model to continue after it rather than repeat it.
   */
  readonly shown?: string
}

/**
 * What became of a malformed response handed to `persistFailed`:
 * - `retried`: a retry is sent next (the hook runs before it, and its failure stops it);
 * - `repeated`: no retry was left (a second leak, or a leak with the turn's budget spent by
 *   earlier requests): the turn ends with `repeated-markup`;
 * - `truncated`: the same, for a call cut off by the output limit (`truncated-call`);
 * - `not-offered`: the markup names no offered tool, so it is kept out of the answer and not
 *   retried.
 *
 * @example
 * ```ts
 * import type { FailedOutcome } from "@tool-rescue/recovery"
 *
 * const final = (outcome: FailedOutcome) => outcome !== "retried"
 * ```
 */
export type FailedOutcome = "retried" | "repeated" | "truncated" | "not-offered"

/**
 * A malformed response, handed to `persistFailed`: before each retry (`outcome: "retried"`), and
 * for every other response whose markup tool-rescue withheld (`repeated`, `truncated`,
 * `not-offered`: the turn's end, where a failing hook changes nothing).
 *
 * @example
 * ```ts
 * import type { FailedResponse } from "@tool-rescue/recovery"
 *
 * const log: FailedResponse[] = []
 * const persistFailed = async (failed: FailedResponse) => {
 *   log.push(failed) // e.g. store the message with status "failed"
 * }
 * ```
 */
export interface FailedResponse {
  /** The round (0 = the original request) whose response was malformed. */
  readonly round: number
  /** Responses this model call got so far, this one included (`round + 1`, like the error's `rounds`). */
  readonly rounds: number
  /** Corrected responses earlier model calls of the same user turn got. */
  readonly recoveriesBefore: number
  /** What became of it. */
  readonly outcome: FailedOutcome
  /** The format of its first markup (every markup's is in `markup`). */
  readonly format: FormatId
  /** Names of the tools offered in the request. */
  readonly tools: readonly string[]
  /** The model the request named, when the adapter knows it. */
  readonly model?: string
  /** The full text of the response, markup included. */
  readonly text: string
  /** The full reasoning text of the response, if any. */
  readonly reasoning: string
  /** The markup found (offsets are into `text`, or into `reasoning` for markup found there). */
  readonly markup: readonly Markup[]
}

/**
 * Which stream a markup was found in: answer text or the provider's separate reasoning parts.
 *
 * @example
 * ```ts
 * import type { Channel, RecoveryEvent } from "@tool-rescue/recovery"
 *
 * const where = (event: Extract<RecoveryEvent, { type: "markup-detected" }>): Channel => event.channel
 * ```
 */
export type Channel = "text" | "reasoning"

/**
 * Events reported through `onEvent`. A listener that throws never breaks the turn.
 *
 * - `markup-detected`: once per markup, at the end of the attempt that held it (when
 *   `answerFollows` is known). `text` is the withheld markup text; `channel` says whether it was
 *   found in answer text or in reasoning parts (offsets are into that channel); `reason` says
 *   why it is or is not recoverable (`recoverable` is `reason === "recoverable"`).
 * - `recovery-started`: a retry of round `round` is about to be sent for `markup`.
 * - `recovery-succeeded`: the retry of round `round` produced no recoverable markup.
 * - `recovery-failed`: the recovery ended without success (`error` is a
 *   {@link ToolCallRecoveryError} or the provider's own error, which is rethrown too; for a retry
 *   whose stream reported the error inside it, the raw of that `failed` part, or an `Error` for a
 *   stream cut before its finish with `finishRequired`, which end the turn without throwing).
 * - `recovery-skipped`: an adapter chose not to run recovery for a request (`planTurn` reports it).
 * - `unknown-tool-call`: a structured call named a tool that was not offered.
 *
 * @example
 * ```ts
 * import type { RecoveryEvent } from "@tool-rescue/recovery"
 *
 * const onEvent = (event: RecoveryEvent) => {
 *   if (event.type === "markup-detected") console.warn(event.markup.format, event.markup.toolName)
 * }
 * ```
 */
export type RecoveryEvent =
  | {
      readonly type: "markup-detected"
      readonly round: number
      readonly markup: Markup
      readonly recoverable: boolean
      readonly reason: MarkupReason
      readonly channel: Channel
      readonly text: string
    }
  | {
      readonly type: "recovery-started"
      readonly round: number
      readonly markup: readonly Markup[]
      /** The offered tool an answer announced without calling it (`announcedCalls: "retry"`). */
      readonly announced?: string
    }
  | { readonly type: "recovery-succeeded"; readonly round: number }
  | { readonly type: "recovery-failed"; readonly round: number; readonly error: unknown }
  | { readonly type: "recovery-skipped"; readonly reason: string }
  | { readonly type: "unknown-tool-call"; readonly toolName: string; readonly params: string }

/**
 * The option names every adapter takes with these same names and types (ARCHITECTURE.md#policy,
 * "Option names"); each adapter's type tests check its options against `Pick<RecoveryOptions, …>`.
 *
 * @example
 * ```ts
 * import type { RecoveryOptions, SharedOptionName } from "@tool-rescue/recovery"
 *
 * type Shared = Pick<RecoveryOptions, SharedOptionName>
 * ```
 */
export type SharedOptionName =
  | "persistFailed"
  | "onEvent"
  | "maxRecoveries"
  | "instructionPlacement"
  | "evidence"
  | "reasoning"
  | "unknownToolMarkup"
  | "announcedCalls"

/**
 * Options shared by every adapter.
 *
 * @example
 * ```ts
 * import type { RecoveryOptions } from "@tool-rescue/recovery"
 *
 * const options: RecoveryOptions = {
 *   maxRecoveries: 1,
 *   evidence: "structure",
 *   reasoning: "auto",
 *   instructionPlacement: "system",
 *   onEvent: (event) => console.debug(event.type),
 * }
 * ```
 */
export interface RecoveryOptions extends Policy {
  /**
   * Corrected responses allowed per user turn (a non-negative integer), across all the steps of
   * the turn (`recoveryScope`). @defaultValue 1
   */
  readonly maxRecoveries?: number
  /**
   * What `maxRecoveries` counts: `"turn"` (default) all the model calls of one user turn (one
   * `generateText`/`streamText` with its steps, one `runTools`, one agent turn: everything after
   * the last user message); `"step"` each model call on its own, for long-running agents whose
   * one user message starts hundreds of steps. @defaultValue "turn"
   */
  readonly recoveryScope?: "turn" | "step"
  /**
   * A leak that would be recovered but names a tool that is not offered (a typo, a stale name):
   * `"ignore"` keeps it withheld and ends the turn as answered; `"retry"` spends the same single
   * retry, with an instruction that names the missing tool, the closest offered names and the
   * offered list. @defaultValue "ignore"
   */
  readonly unknownToolMarkup?: "ignore" | "retry"
  /**
   * An answer that ends by announcing the use of an offered tool ("I'll use the Glob tool…") with
   * no call and no markup: `"ignore"` takes it as the answer; `"retry"` spends the turn's retry
   * with an instruction that says no call was made (see `findAnnouncedCall`). @defaultValue "ignore"
   */
  readonly announcedCalls?: "ignore" | "retry"
  /** Where the host instruction goes. @defaultValue "system" */
  readonly instructionPlacement?: "system" | "user"
  /** Replaces the default host instruction. */
  readonly instruction?: string | ((context: InstructionContext) => string)
  /** The formats to detect. @defaultValue every format but `cline-xml` */
  readonly formats?: readonly FormatId[]
  /** Cap on text held while a candidate is undecided. */
  readonly maxHoldChars?: number
  /** Awaited with the malformed response before a retry; a throw or rejection ends the turn with an error. */
  readonly persistFailed?: (failed: FailedResponse) => void | Promise<void>
  /** Receives every {@link RecoveryEvent}. */
  readonly onEvent?: (event: RecoveryEvent) => void
}

/**
 * What an adapter hands to {@link runTurn} beside the plan: how to make an attempt, and how the
 * attempts behave.
 *
 * @example
 * ```ts
 * import type { NormalizedPart, TurnInput } from "@tool-rescue/recovery"
 *
 * async function* call(instruction: string | undefined): AsyncIterable<NormalizedPart<string>> {
 *   yield { type: "text", text: instruction === undefined ? "Hello" : "Hello again" }
 *   yield { type: "finish", raw: "stop" }
 * }
 * const input: TurnInput<string> = {
 *   attempt: (_round, { instruction }) => call(instruction),
 * }
 * ```
 */
export interface TurnInput<Raw> {
  /**
   * Starts one model call. Round 0 is the original request (`instruction` undefined); round ≥ 1
   * is a retry that must send the original request without the malformed response, plus
   * `instruction` placed per the plan's `placement`.
   */
  readonly attempt: (
    round: number,
    context: AttemptContext,
  ) => AsyncIterable<NormalizedPart<Raw>> | Promise<AsyncIterable<NormalizedPart<Raw>>>
  /** Cancels the turn: the in-flight attempt is aborted and no new attempt starts. */
  readonly signal?: AbortSignal | undefined
  /**
   * The provider's protocol ends every complete attempt with a `finish` part (the AI SDK's
   * stream protocol, Chat Completions' `finish_reason`, the Responses lifecycle end, Effect's
   * `finish`). An attempt whose stream then ends without one was cut short: it is judged like a
   * provider error — its markup stays withheld and is reported (`provider-error`), it is never
   * retried, and nothing is added to the stream. Leave unset where a complete stream may lack a
   * finish (LangChain models that report no finish metadata): the end of the stream is then the
   * end of the response. @defaultValue false
   */
  readonly finishRequired?: boolean | undefined
  /**
   * The caller's promise that an attempt stops promptly once the signal passed to `attempt`
   * aborts: the promise `attempt` returns and its iterator's pending `next()` settle at once (a
   * `fetch` or undici request given that signal does: its body read rejects). The turn then does
   * not race every part against `signal` (a promise and its resolving functions per part);
   * an abort ends the turn the same way (the same error, no new attempt), as soon as the attempt
   * settles. Leave unset where an attempt may ignore its signal: every part is then raced, so that
   * an abort ends the turn at once whatever the provider does. Only with `signal`.
   * @defaultValue false
   */
  readonly settlesOnAbort?: boolean | undefined
  /**
   * The consumer shows the turn as it streams: text an abandoned attempt released stays on
   * screen. The turn then starts a retry's first text on a new line when the shown text does not
   * end one (the `text` part carries the `"\n"` first), and passes the shown text to the
   * instruction (`InstructionContext.shown`). Leave unset where the result drops an abandoned
   * attempt's text (a non-streamed call). @defaultValue false
   */
  readonly streaming?: boolean | undefined
}

/**
 * What {@link recoverToolCalls} takes: a {@link TurnInput} with the request's tools and the raw
 * options, for a turn run in one call (no skip rules; see `planTurn` for an adapter's).
 *
 * @example
 * ```ts
 * import type { RecoverToolCallsInput } from "@tool-rescue/recovery"
 *
 * const input: RecoverToolCallsInput<string> = {
 *   tools: ["read_file"],
 *   attempt: async function* () {
 *     yield { type: "finish", raw: "stop" }
 *   },
 *   options: { maxRecoveries: 1 },
 * }
 * ```
 */
export interface RecoverToolCallsInput<Raw> extends TurnInput<Raw> {
  /** Names of the tools offered in this request. */
  readonly tools: readonly string[]
  readonly options?: RecoveryOptions | undefined
  /**
   * Recoveries made earlier in this user turn: they count against `maxRecoveries`, so with none
   * left a malformed response ends the turn with `repeated-markup` at once. Retry rounds still
   * count from 1. @defaultValue 0
   */
  readonly recoveriesBefore?: number | undefined
}

/**
 * Passed to each attempt.
 *
 * @example
 * ```ts
 * import type { AttemptContext } from "@tool-rescue/recovery"
 *
 * const start = (round: number, { instruction, signal }: AttemptContext) =>
 *   fetch("http://127.0.0.1:8080/v1/chat/completions", { method: "POST", signal, body: JSON.stringify({ round, instruction }) })
 * ```
 */
export interface AttemptContext {
  /** The host instruction for a retry; undefined on round 0. */
  readonly instruction: string | undefined
  /** Aborted when the turn is cancelled or the consumer stops reading. */
  readonly signal: AbortSignal
}

/**
 * `code` of a {@link ToolCallRecoveryError}: `repeated-markup` (a malformed response and no
 * recovery left), `persist-failed` (`persistFailed` threw or rejected), `aborted` (the turn was
 * cancelled while recovering), `truncated-call` (the call was cut off by the output limit, again).
 *
 * @example
 * ```ts
 * import type { ToolCallRecoveryErrorCode } from "@tool-rescue/recovery"
 *
 * const retryable = (code: ToolCallRecoveryErrorCode): boolean => code === "repeated-markup"
 * ```
 */
export type ToolCallRecoveryErrorCode = "repeated-markup" | "persist-failed" | "aborted" | "truncated-call"
