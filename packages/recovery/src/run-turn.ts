import type { Markup } from "@tool-rescue/detector"
import { type AttemptReport, type AttemptScanner, createAttemptScanner } from "./attempt-scanner.ts"
import { judgeAttempt } from "./create-response-judge.ts"
import { emitEvent } from "./emit-event.ts"
import { findAnnouncedCall } from "./find-announced-call.ts"
import { resolveInstruction } from "./instruction.ts"
import { budgetLeft } from "./plan-turn.ts"
import { type ResolvedRecoveryOptions, resolveRecoveryOptions } from "./resolve-options.ts"
import { type MarkupSummary, summarizeMarkup, ToolCallRecoveryError } from "./tool-call-recovery-error.ts"
import { createTurnTelemetry, type TurnTelemetry } from "./turn-telemetry.ts"
import type { NormalizedPart, OutputPart, RecoveryEvent, TurnInput } from "./types.ts"

/**
 * A provider error reported inside an attempt's stream: the raw of the first part marked
 * `failed`, or an `Error` with {@link CUT_SHORT} for a stream that ended without its finish.
 */
interface ProviderFailure {
  readonly error: unknown
}

const CUT_SHORT = "tool-rescue: the stream ended before its finish part (cut short)"

/** Rejection value of an {@link AbortRace}: our own abort won the race against the provider. */
const ABORTED: unique symbol = Symbol("aborted")

/**
 * Runs one turn: calls `input.attempt(0)`, forwards safe text as it arrives, withholds tool-call
 * markup written as text, and at the end of the attempt decides (DESIGN.md, "Policy"):
 *
 * - a structured tool call in the attempt, no recoverable markup, or a provider error inside the
 *   stream (a part with `failed: true`, or with `input.finishRequired` a stream that ends without
 *   a `finish` part) → the attempt's `finish` part (held until now) is yielded and the turn
 *   ends: provider errors are final, never retried;
 * - recoverable markup and a retry left → events, `persistFailed(failed)` is awaited, an
 *   `{ type: "attempt-start", round }` part is yielded and `attempt(round, { instruction })` runs;
 * - recoverable markup and no retry left → throws {@link ToolCallRecoveryError} `"repeated-markup"`.
 *
 * The budget is `maxRecoveries` per user turn: `input.recoveriesBefore` (from {@link planTurn})
 * were spent by earlier model calls of the turn. Every `markup-detected` event carries the
 * {@link MarkupReason} of {@link markupReason}.
 *
 * Recognised markup is never yielded, recoverable or not (an unknown tool name, a rehearsal in
 * reasoning): it is reported through `markup-detected` events with its text.
 *
 * Errors: provider errors (thrown by `attempt` or its iterable) are rethrown unchanged and never
 * retried. A `persistFailed` failure throws `"persist-failed"`. Aborting `input.signal` aborts the
 * in-flight attempt's signal and stops reading it at once; no new attempt starts. Before any
 * recovery the abort surfaces as the provider's own error or, if the provider does not react,
 * as `signal.reason` (like `fetch`); during recovery (persisting, or in a retry) it throws
 * `"aborted"` with `signal.reason` as `cause`. A consumer that stops reading (`break`,
 * `return()`) ends the turn silently: the in-flight attempt is aborted and closed.
 *
 * Invalid input (no `attempt` function, invalid options) is API misuse and throws at once.
 *
 * @example
 * ```ts
 * import { runTurn, type NormalizedPart } from "@tool-rescue/recovery"
 *
 * async function* model(instruction: string | undefined): AsyncIterable<NormalizedPart<string>> {
 *   if (instruction === undefined) {
 *     yield { type: "text", text: "Reading it.\n<function=read_file><parameter=path>a.ts</parameter></function>" }
 *   } else {
 *     yield { type: "tool-call", toolName: "read_file", params: '{"path":"a.ts"}', raw: "call_1" }
 *   }
 *   yield { type: "finish", raw: "done" }
 * }
 *
 * for await (const part of runTurn({ tools: ["read_file"], attempt: (_round, { instruction }) => model(instruction) })) {
 *   console.log(part)
 *   // { type: "text", text: "Reading it.\n" }, { type: "attempt-start", round: 1, discarded: ["done"] },
 *   // { type: "tool-call", … }, { type: "finish", raw: "done" }
 * }
 * ```
 */
export function runTurn<Raw>(input: TurnInput<Raw>): AsyncGenerator<OutputPart<Raw>, void, undefined> {
  if (typeof input !== "object" || input === null)
    throw new TypeError("tool-rescue: runTurn needs an input object")
  if (typeof input.attempt !== "function")
    throw new TypeError("tool-rescue: runTurn needs an attempt function")
  if (!Array.isArray(input.tools) || !input.tools.every((tool) => typeof tool === "string")) {
    throw new TypeError("tool-rescue: runTurn needs tools, an array of tool names")
  }
  const signal = input.signal
  if (signal !== undefined && !isAbortSignal(signal))
    throw new TypeError("tool-rescue: signal must be an AbortSignal")
  return turn(createTurn(input, resolveRecoveryOptions(input.options), signal))
}

/**
 * Alias of {@link runTurn}, for readers who look for the middleware by what it does.
 *
 * @example
 * ```ts
 * import { recoverToolCalls } from "@tool-rescue/recovery"
 *
 * const parts = recoverToolCalls({ tools: [], attempt: async function* () {} })
 * ```
 */
export const recoverToolCalls: typeof runTurn = runTurn

/**
 * The turn's control flow, outside the generator: starting an attempt, mapping its errors,
 * the end-of-attempt decision. Kept out of `turn` on purpose: every local of an async generator
 * is saved and restored at each `yield` and `await`, once per delta, so its frame stays small.
 */
interface Turn<Raw> {
  readonly scanner: AttemptScanner<Raw>
  /** Reused for every part (no allocation per delta). */
  readonly out: OutputPart<Raw>[]
  /** Set when the turn is aborted through `input.signal`; `next` then races it. */
  readonly raced: boolean
  /** `input.finishRequired`: an attempt that ends without a `finish` part was cut short. */
  readonly finishRequired: boolean
  /** Starts attempt `round`; throws the error that ends the turn when it may not start. */
  start(round: number): Promise<AsyncIterator<NormalizedPart<Raw>>>
  /** The next part of the attempt, raced against the signal. */
  next(iterator: AsyncIterator<NormalizedPart<Raw>>): Promise<IteratorResult<NormalizedPart<Raw>>>
  /** The error to throw for `error` from the attempt of `round`. */
  streamError(
    round: number,
    error: unknown,
    iterator: AsyncIterator<NormalizedPart<Raw>> | undefined,
  ): unknown
  /** The consumer stopped at a `yield`: aborts the attempt and closes its (idle) iterator. */
  stop(iterator: AsyncIterator<NormalizedPart<Raw>> | undefined): Promise<void>
  /**
   * The end-of-attempt decision. Returns the retry's `attempt-start` part, or `undefined` when
   * the turn is over (the held finish part and what follows it are then in `out`). Throws the
   * error that ends the turn.
   */
  decide(
    round: number,
    report: AttemptReport<Raw>,
    failure: ProviderFailure | undefined,
    truncated: boolean,
  ): Promise<OutputPart<Raw> | undefined>
  /** The turn ended, whichever way. */
  dispose(): void
}

async function* turn<Raw>(t: Turn<Raw>): AsyncGenerator<OutputPart<Raw>, void, undefined> {
  const { scanner, out, raced, finishRequired } = t
  try {
    for (let round = 0; ; round++) {
      const iterator = await t.start(round)
      let finished = false
      let failure: ProviderFailure | undefined
      let truncated = false
      let sawFinish = false
      try {
        for (;;) {
          // No race without a signal: the hot path stays one await per part.
          const step = raced ? await t.next(iterator) : await iterator.next()
          if (step.done === true) break
          const part = step.value
          if (part.type === "finish") {
            sawFinish = true
            if (part.failed === true) failure ??= { error: part.raw }
            if (part.truncated === true) truncated = true
          } else if (part.type === "other" && part.failed === true) failure ??= { error: part.raw }
          const whole = scanner.push(part, out)
          if (whole !== undefined) yield whole
          else if (out.length > 0) {
            for (let i = 0; i < out.length; i++) yield out[i]!
            out.length = 0
          }
        }
        finished = true
        // Cut short: the stream closed before the finish its protocol always sends. Judged like a
        // provider error (never retried), whatever markup it held.
        if (finishRequired && !sawFinish) failure ??= { error: new Error(CUT_SHORT) }
      } catch (error) {
        finished = true
        throw t.streamError(round, error, iterator)
      } finally {
        // Reached unfinished only when the consumer stopped reading at one of our `yield`s.
        if (!finished) await t.stop(iterator)
      }
      const report = scanner.end(out)
      for (let i = 0; i < out.length; i++) yield out[i]!
      out.length = 0
      const next = await t.decide(round, report, failure, truncated)
      for (let i = 0; i < out.length; i++) yield out[i]!
      out.length = 0
      if (next === undefined) return
      yield next
    }
  } finally {
    t.dispose()
  }
}

function createTurn<Raw>(
  input: TurnInput<Raw>,
  options: ResolvedRecoveryOptions,
  signal: AbortSignal | undefined,
): Turn<Raw> {
  const tools = [...input.tools]
  const policy = {
    evidence: options.evidence,
    reasoning: options.reasoning,
    unknownToolMarkup: options.unknownToolMarkup,
  }
  // One controller for the whole turn: aborted by `input.signal`, or by the consumer stopping.
  const controller = new AbortController()
  const forward = () => controller.abort(signal?.reason)
  if (signal?.aborted) forward()
  else signal?.addEventListener("abort", forward, { once: true })
  // Every event of the turn goes to the host's listener and to OpenTelemetry (a no-op without an SDK).
  // Made on the turn's first event: most turns have none, and an idle stream should not hold it.
  let telemetry: TurnTelemetry | undefined
  const emit = (event: RecoveryEvent): void => {
    telemetry ??= createTurnTelemetry()
    telemetry.record(event)
    emitEvent(options, event)
  }
  const scanner = createAttemptScanner<Raw>({
    tools,
    formats: options.formats,
    maxHoldChars: options.maxHoldChars,
    onUnknownTool: (toolName, params) => emit({ type: "unknown-tool-call", toolName, params }),
    // The whole text only for those who read it: otherwise a stream holds the detector's
    // hold-back and withheld markup, not the response.
    keepText: options.persistFailed !== undefined || options.announcedCalls === "retry",
  })
  const race = createAbortRace(signal)
  const out: OutputPart<Raw>[] = []
  const found: MarkupSummary[] = []
  let done = false
  let instruction: string | undefined
  /** Retries this model call may still make: the turn's budget minus what earlier calls spent. */
  const budget = budgetLeft(options, input.recoveriesBefore)

  /** The turn was aborted through `input.signal` (not by the consumer, who is gone then). */
  const aborted = () => signal?.aborted === true
  const abortError = (round: number) =>
    new ToolCallRecoveryError({ code: "aborted", rounds: round + 1, markup: found, cause: signal?.reason })
  const fail = (round: number, error: unknown): unknown => {
    emit({ type: "recovery-failed", round, error })
    return error
  }

  return {
    scanner,
    out,
    raced: signal !== undefined,
    finishRequired: input.finishRequired === true,

    async start(round) {
      if (aborted()) throw round > 0 ? fail(round, abortError(round)) : signal?.reason
      scanner.reset()
      try {
        const iterable = await race(
          Promise.resolve().then(() => input.attempt(round, { instruction, signal: controller.signal })),
        )
        return iterable[Symbol.asyncIterator]()
      } catch (error) {
        throw this.streamError(round, error, undefined)
      }
    },

    next: (iterator) => race(iterator.next()),

    streamError(round, error, iterator) {
      const recovering = round > 0
      if (error === ABORTED) {
        // Our race won: the provider did not react to the signal. Close it without waiting.
        closeQuietly(iterator)
        return recovering ? fail(round, abortError(round)) : signal?.reason
      }
      if (recovering && aborted()) return fail(round, abortError(round))
      // A provider error: unchanged, never retried.
      return recovering ? fail(round, error) : error
    },

    async stop(iterator) {
      controller.abort(consumerStopped())
      // The attempt's iterator is idle (we were suspended at a yield), so closing it is prompt.
      await closeIdle(iterator)
    },

    async decide(round, report, failure, truncated) {
      const failed = failure !== undefined
      const judgement = judgeAttempt(report, policy, failed)
      const recoverable: Markup[] = []
      for (const { markup, channel, text, reason, recoverable: isRecoverableMarkup } of judgement.markup) {
        if (isRecoverableMarkup) recoverable.push(markup)
        emit({
          type: "markup-detected",
          round,
          markup,
          recoverable: isRecoverableMarkup,
          reason,
          channel,
          text,
        })
      }
      // An answer that ends by announcing an offered tool, with no call and no markup (opt-in;
      // only while the budget lasts: a second announcement stands as the answer).
      const announced =
        options.announcedCalls === "retry" &&
        !judgement.retry &&
        judgement.markup.length === 0 &&
        !report.structuredCall &&
        !failed &&
        round < budget
          ? findAnnouncedCall(report.text, tools)?.toolName
          : undefined
      if (!judgement.retry && announced === undefined) {
        // A retry that ended in a provider error inside its stream failed, like one that threw.
        if (round > 0) {
          emit(
            failure === undefined
              ? { type: "recovery-succeeded", round }
              : { type: "recovery-failed", round, error: failure.error },
          )
        }
        scanner.release(out)
        done = true
        return undefined
      }

      for (const markup of recoverable) found.push(summarizeMarkup(markup, round))
      // Cut off by the output limit with a call still open: its own outcome, not a format mistake.
      const cutOff = truncated && recoverable.some((markup) => !markup.complete)
      if (round >= budget) {
        const code = cutOff ? "truncated-call" : "repeated-markup"
        throw fail(round, new ToolCallRecoveryError({ code, rounds: round + 1, markup: found }))
      }
      if (aborted()) throw fail(round, abortError(round))
      const next = round + 1
      emit({
        type: "recovery-started",
        round: next,
        markup: recoverable,
        ...(announced === undefined ? {} : { announced }),
      })
      const persist = options.persistFailed
      if (persist !== undefined) {
        try {
          await race(
            Promise.resolve().then(() =>
              persist({
                round,
                text: report.text,
                reasoning: report.reasoning,
                markup: recoverable,
              }),
            ),
          )
        } catch (error) {
          if (error === ABORTED || aborted()) throw fail(round, abortError(round))
          throw fail(
            round,
            new ToolCallRecoveryError({
              code: "persist-failed",
              rounds: round + 1,
              markup: found,
              cause: error,
            }),
          )
        }
      }
      instruction = resolveInstruction(options, {
        round: next,
        markup: recoverable,
        tools,
        truncated: cutOff,
        ...(announced === undefined ? {} : { announced }),
      })
      return { type: "attempt-start", round: next, discarded: report.discarded }
    },

    dispose() {
      telemetry?.end()
      signal?.removeEventListener("abort", forward)
      race.dispose()
      // Consumer stopped between attempts (at `attempt-start`), or an error ended the turn: no
      // attempt may go on running in the background.
      if (!done && !controller.signal.aborted) controller.abort(consumerStopped())
    },
  }
}

/** Settles like `promise`, or rejects with {@link ABORTED} as soon as the signal aborts. */
interface AbortRace {
  <T>(promise: Promise<T>): Promise<T>
  dispose(): void
}

/**
 * One abort listener for the whole turn, not one per delta: the hot path costs one promise per
 * part and no listener bookkeeping. Without a signal the race is the identity.
 */
function createAbortRace(signal: AbortSignal | undefined): AbortRace {
  if (signal === undefined) return Object.assign(<T>(promise: Promise<T>) => promise, { dispose() {} })
  let rejectPending: ((reason: unknown) => void) | undefined
  const onAbort = () => rejectPending?.(ABORTED)
  signal.addEventListener("abort", onAbort, { once: true })
  const race = <T>(promise: Promise<T>): Promise<T> => {
    if (signal.aborted) {
      promise.catch(() => undefined)
      return Promise.reject(ABORTED)
    }
    return new Promise<T>((resolve, reject) => {
      rejectPending = reject
      promise.then(resolve, reject)
    })
  }
  return Object.assign(race, { dispose: () => signal.removeEventListener("abort", onAbort) })
}

async function closeIdle(iterator: AsyncIterator<unknown> | undefined): Promise<void> {
  try {
    await iterator?.return?.()
  } catch {
    // The attempt failed while closing: the consumer has already left, nobody to tell.
  }
}

function closeQuietly(iterator: AsyncIterator<unknown> | undefined): void {
  if (iterator?.return === undefined) return
  try {
    iterator.return().catch(() => undefined)
  } catch {
    // A synchronous throw from a custom iterator's return(): nothing more to close.
  }
}

function consumerStopped(): Error {
  const error = new Error("tool-rescue: the consumer stopped reading the turn")
  error.name = "AbortError"
  return error
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as AbortSignal).aborted === "boolean" &&
    typeof (value as AbortSignal).addEventListener === "function"
  )
}
