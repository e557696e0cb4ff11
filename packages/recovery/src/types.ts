/**
 * Public types of `@tool-rescue/recovery`: the normalized part model every adapter maps to and
 * from, the options, the events and the failed-response record. This file is the contract the
 * adapters (`ai-sdk`, `openai`, `effect`) are written against.
 */
import type { FormatId, Markup, Policy } from "@tool-rescue/detector"

/**
 * A part of one model attempt, normalized. `Raw` is the adapter's own part type: it rides along
 * so the adapter can map the part back without loss.
 */
export type NormalizedPart<Raw = unknown> =
  /** Visible answer text. `id` is the adapter's text-block id, when it has one. */
  | { readonly type: "text"; readonly text: string; readonly id?: string; readonly raw?: Raw }
  /** Reasoning text (scanned under the reasoning policy; never withheld from the consumer unless it holds markup). */
  | { readonly type: "reasoning"; readonly text: string; readonly id?: string; readonly raw?: Raw }
  /** A structured tool call produced by the provider (never built from text). */
  | { readonly type: "tool-call"; readonly toolName: string; readonly raw: Raw }
  /** The end of the attempt, usually with usage and a finish reason inside `raw`. */
  | { readonly type: "finish"; readonly raw: Raw }
  /** Anything else: passed through untouched, in order. */
  | { readonly type: "other"; readonly raw: Raw }

/** What {@link runTurn} yields to the adapter: the parts the consumer should see, plus attempt boundaries. */
export type OutputPart<Raw = unknown> =
  | NormalizedPart<Raw>
  /** A retry attempt starts (round ≥ 1); adapters use it to renumber ids when splicing streams. */
  | { readonly type: "attempt-start"; readonly round: number }

/** The context an instruction function receives. */
export interface InstructionContext {
  /** 1 for the first retry. */
  readonly round: number
  /** The markup that caused the retry. */
  readonly markup: readonly Markup[]
  /** The tools offered this turn. */
  readonly tools: readonly string[]
}

/** The malformed response handed to `persistFailed` before a retry. */
export interface FailedResponse {
  /** The round (0 = the original request) whose response was malformed. */
  readonly round: number
  /** The full text of the response, markup included. */
  readonly text: string
  /** The full reasoning text of the response, if any. */
  readonly reasoning: string
  /** The markup found. */
  readonly markup: readonly Markup[]
}

/** Events reported through `onEvent`. A listener that throws never breaks the turn. */
export type RecoveryEvent =
  | { readonly type: "markup-detected"; readonly round: number; readonly markup: Markup; readonly recoverable: boolean }
  | { readonly type: "recovery-started"; readonly round: number; readonly markup: readonly Markup[] }
  | { readonly type: "recovery-succeeded"; readonly round: number }
  | { readonly type: "recovery-failed"; readonly round: number; readonly error: unknown }
  | { readonly type: "recovery-skipped"; readonly reason: string }
  | { readonly type: "unknown-tool-call"; readonly toolName: string; readonly params: string }

/** Options shared by every adapter. */
export interface RecoveryOptions extends Policy {
  /** Corrected responses allowed per turn. @defaultValue 1 */
  readonly maxRecoveries?: number
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

/** What an adapter hands to {@link runTurn}. */
export interface TurnInput<Raw> {
  /** Names of the tools offered in this request. */
  readonly tools: readonly string[]
  /**
   * Starts one model call. Round 0 is the original request (`instruction` undefined); round ≥ 1
   * is a retry that must send the original request without the malformed response, plus
   * `instruction` placed per `instructionPlacement`.
   */
  readonly attempt: (round: number, context: AttemptContext) => AsyncIterable<NormalizedPart<Raw>> | Promise<AsyncIterable<NormalizedPart<Raw>>>
  /** Cancels the turn: the in-flight attempt is aborted and no new attempt starts. */
  readonly signal?: AbortSignal
  readonly options?: RecoveryOptions
}

/** Passed to each attempt. */
export interface AttemptContext {
  /** The host instruction for a retry; undefined on round 0. */
  readonly instruction: string | undefined
  /** Aborted when the turn is cancelled or the consumer stops reading. */
  readonly signal: AbortSignal
}

/** `code` of a {@link ToolCallRecoveryError}. */
export type ToolCallRecoveryErrorCode = "repeated-markup" | "persist-failed" | "aborted"
