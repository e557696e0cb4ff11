import type { Markup, Policy } from "@tool-rescue/detector"
import { type AttemptReport, type AttemptScanner, createAttemptScanner } from "./attempt-scanner.ts"
import { type MarkupReason, markupReason } from "./markup-reason.ts"
import { resolveRecoveryOptions } from "./resolve-options.ts"
import type { Channel, NormalizedPart, OutputPart, RecoveryOptions } from "./types.ts"

/**
 * One markup of a response with its judgement.
 *
 * @example
 * ```ts
 * import type { JudgedMarkup } from "@tool-rescue/recovery/adapter"
 *
 * const line = (found: JudgedMarkup): string => `${found.markup.format} ${found.channel}: ${found.reason}`
 * ```
 */
export interface JudgedMarkup {
  /** Offsets are into the channel's whole text for the response. */
  readonly markup: Markup
  readonly channel: Channel
  /** The withheld markup text. */
  readonly text: string
  readonly reason: MarkupReason
  /** A retry is spent on it: `reason` is `"recoverable"`, or `"unknown-tool"` under `unknownToolMarkup: "retry"`. */
  readonly recoverable: boolean
}

/**
 * What tool-rescue decides about one complete response.
 *
 * @example
 * ```ts
 * import type { Judgement } from "@tool-rescue/recovery/adapter"
 *
 * const summary = (judgement: Judgement): string =>
 *   judgement.retry ? `retry for ${judgement.markup.filter((m) => m.recoverable).length} markup` : "kept"
 * ```
 */
export interface Judgement {
  /** Every markup found, reasoning channel and text channel in arrival order. */
  readonly markup: readonly JudgedMarkup[]
  /** Whether the response holds a structured tool call. */
  readonly structuredCall: boolean
  /** Whether the response ended in a provider error (never retried). */
  readonly failed: boolean
  /** Whether tool-rescue would spend a retry on the response (some markup is recoverable). */
  readonly retry: boolean
}

/** The policy a judgement applies: the detector's, plus whether unknown names are retried. */
type JudgePolicy = Policy & { readonly unknownToolMarkup?: "ignore" | "retry" }

/**
 * The end-of-attempt judgement `runTurn` acts on and {@link createResponseJudge} reports: one
 * {@link markupReason} per markup, and whether the response is retried.
 */
export function judgeAttempt(
  report: AttemptReport<unknown>,
  policy: JudgePolicy,
  failed: boolean,
): Judgement {
  // A clean response, the common case: no judgement to make, nothing made for it.
  if (report.markup.length === 0)
    return { markup: [], structuredCall: report.structuredCall, failed, retry: false }
  const facts = { structuredCall: report.structuredCall, failed }
  let retry = false
  const markup = report.markup.map(({ markup, channel, text }): JudgedMarkup => {
    let reason = markupReason(markup, policy, facts)
    // Recoverable but for its name: retried only when the host opted in.
    if (
      reason === "not-offered" &&
      policy.unknownToolMarkup === "retry" &&
      markupReason({ ...markup, offered: true }, policy, facts) === "recoverable"
    )
      reason = "unknown-tool"
    const recoverable = reason === "recoverable" || reason === "unknown-tool"
    if (recoverable) retry = true
    return { markup, channel, text, reason, recoverable }
  })
  return { markup, structuredCall: report.structuredCall, failed, retry }
}

/**
 * A non-retrying judge of recorded responses: fed one response's parts, it tells what
 * `runTurn` would decide at the end of that attempt, with the same scanner and the same
 * {@link markupReason}s, but never calls a model. The CLI's `scan` uses it. After `end()` the
 * judge is fresh again for the next response with the same tools.
 *
 * @example
 * ```ts
 * import { createResponseJudge } from "@tool-rescue/recovery/adapter"
 *
 * const judge = createResponseJudge({ tools: ["read_file"] })
 * judge.push({ type: "text", text: "Reading.\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>" })
 * const judgement = judge.end()
 * judgement.retry // true
 * judgement.markup[0]?.reason // "recoverable"
 * ```
 */
export interface ResponseJudge {
  /** The next part of the response (a `failed` part marks a provider error). */
  push(part: NormalizedPart<unknown>): void
  /** The response ended: its judgement. The judge is then reset. */
  end(): Judgement
}

/**
 * Options of {@link createResponseJudge}: the offered tools and the recovery options (policy,
 * formats, hold cap) the adapters would run with.
 *
 * @example
 * ```ts
 * import type { ResponseJudgeOptions } from "@tool-rescue/recovery/adapter"
 *
 * const options: ResponseJudgeOptions = { tools: ["bash"], options: { evidence: "envelope" } }
 * ```
 */
export interface ResponseJudgeOptions {
  readonly tools: readonly string[]
  readonly options?: RecoveryOptions | undefined
}

/**
 * Creates a {@link ResponseJudge}. Invalid options throw at once, as in every adapter.
 *
 * @example
 * ```ts
 * import { createResponseJudge } from "@tool-rescue/recovery/adapter"
 *
 * const judge = createResponseJudge({ tools: ["bash"], options: { reasoning: "auto" } })
 * judge.push({ type: "reasoning", text: "<tool_call>{\"name\":\"bash\",\"arguments\":{}}</tool_call>" })
 * judge.push({ type: "text", text: "Done." })
 * judge.end().markup[0]?.reason // "in-reasoning-answer-follows"
 * ```
 */
export function createResponseJudge({ tools, options }: ResponseJudgeOptions): ResponseJudge {
  const resolved = resolveRecoveryOptions(options)
  const policy = {
    evidence: resolved.evidence,
    reasoning: resolved.reasoning,
    unknownToolMarkup: resolved.unknownToolMarkup,
  }
  const scanner: AttemptScanner<unknown> = createAttemptScanner({
    tools: [...tools],
    formats: resolved.formats,
    maxHoldChars: resolved.maxHoldChars,
    onUnknownTool() {},
  })
  const out: OutputPart<unknown>[] = []
  let failed = false
  return {
    push(part) {
      if ((part.type === "other" || part.type === "finish") && part.failed === true) failed = true
      scanner.push(part, out)
      out.length = 0
    },
    end() {
      const judgement = judgeAttempt(scanner.end(out), policy, failed)
      out.length = 0
      scanner.reset()
      failed = false
      return judgement
    },
  }
}
