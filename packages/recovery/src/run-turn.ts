import type { Markup } from "@tool-rescue/detector"
import {
  type AttemptReport,
  type AttemptScanner,
  type AttemptScannerOptions,
  createAttemptScanner,
} from "./attempt-scanner.ts"
import { judgeAttempt } from "./create-response-judge.ts"
import { emitEvent } from "./emit-event.ts"
import { findAnnouncedCall } from "./find-announced-call.ts"
import { resolveInstruction } from "./instruction.ts"
import { type RecoverPlan, recoverPlan } from "./plan-turn.ts"
import { type ResolvedRecoveryOptions, resolveRecoveryOptions } from "./resolve-options.ts"
import { ShownText } from "./shown-text.ts"
import { type MarkupSummary, summarizeMarkup, ToolCallRecoveryError } from "./tool-call-recovery-error.ts"
import { createTurnTelemetry, type TurnTelemetry } from "./turn-telemetry.ts"
import type {
  AttemptContext,
  FailedOutcome,
  FailedResponse,
  NormalizedPart,
  OutputPart,
  RecoverToolCallsInput,
  RecoveryEvent,
  TurnInput,
} from "./types.ts"

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
 * Runs the turn `planTurn` (`@tool-rescue/recovery/adapter`) planned: calls `input.attempt(0)`, forwards safe text as it arrives, withholds tool-call
 * markup written as text, and at the end of the attempt decides (ARCHITECTURE.md#policy):
 *
 * - a structured tool call in the attempt, no recoverable markup, or a provider error inside the
 *   stream (a part with `failed: true`, or with `input.finishRequired` a stream that ends without
 *   a `finish` part) → the attempt's `finish` part (held until now) is yielded and the turn
 *   ends: provider errors are final, never retried;
 * - recoverable markup and a retry left → events, `persistFailed(failed)` is awaited, an
 *   `{ type: "attempt-start", round }` part is yielded and `attempt(round, { instruction })` runs;
 * - recoverable markup and no retry left → throws {@link ToolCallRecoveryError} `"repeated-markup"`.
 *
 * The budget is the plan's: `maxRecoveries` per user turn, less the `recoveriesBefore` spent by
 * earlier model calls of the turn. The options are the plan's, resolved and checked once. Every `markup-detected` event carries the
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
 * `"aborted"` with `signal.reason` as `cause`. Every part is raced against the signal for that,
 * unless `input.settlesOnAbort` says the attempts stop promptly on their own (the same endings).
 * A consumer that stops reading (`break`, `return()`) ends the turn silently: the in-flight
 * attempt is aborted and closed.
 *
 * What it returns is an async generator. Invalid input (a plan that is not a `recover` plan, no
 * `attempt` function) is API misuse and throws at once.
 *
 * @example
 * ```ts
 * import { type NormalizedPart, runTurn } from "@tool-rescue/recovery"
 * import { planTurn, resolveRecoveryOptions } from "@tool-rescue/recovery/adapter"
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
 * const plan = planTurn(resolveRecoveryOptions({}), { tools: ["read_file"] })
 * if (plan.kind === "skip") throw new Error(plan.reason)
 * for await (const part of runTurn(plan, { attempt: (_round, { instruction }) => model(instruction) })) {
 *   console.log(part)
 *   // { type: "text", text: "Reading it.\n" }, { type: "attempt-start", round: 1, discarded: ["done"] },
 *   // { type: "tool-call", … }, { type: "finish", raw: "done" }
 * }
 * ```
 */
export function runTurn<Raw>(
  plan: RecoverPlan,
  input: TurnInput<Raw>,
): AsyncGenerator<OutputPart<Raw>, void, undefined> {
  if (typeof plan !== "object" || plan === null || plan.kind !== "recover")
    throw new TypeError("tool-rescue: runTurn needs a recover plan (from planTurn)")
  if (typeof input !== "object" || input === null)
    throw new TypeError("tool-rescue: runTurn needs an input object")
  if (typeof input.attempt !== "function")
    throw new TypeError("tool-rescue: runTurn needs an attempt function")
  const signal = input.signal
  if (signal !== undefined && !isAbortSignal(signal))
    throw new TypeError("tool-rescue: signal must be an AbortSignal")
  return turn(new Turn(plan, input, signal))
}

/**
 * Runs one turn in one call, from the request's tools and the raw options: resolves the options
 * (invalid ones throw at once), plans the turn with no skip rules, and runs it with
 * {@link runTurn}. For adapters, `planTurn` then `runTurn`: the options resolved once, where the
 * adapter is configured.
 *
 * @example
 * ```ts
 * import { recoverToolCalls } from "@tool-rescue/recovery"
 *
 * const parts = recoverToolCalls({ tools: [], attempt: async function* () {} })
 * ```
 */
export function recoverToolCalls<Raw>(
  input: RecoverToolCallsInput<Raw>,
): AsyncGenerator<OutputPart<Raw>, void, undefined> {
  if (typeof input !== "object" || input === null)
    throw new TypeError("tool-rescue: recoverToolCalls needs an input object")
  const plan = recoverPlan(resolveRecoveryOptions(input.options), input.tools, input.recoveriesBefore)
  return runTurn(plan, input)
}

/**
 * The turn's policy, apart from its iteration (the generator {@link turn}): starting an attempt, mapping
 * its errors, the end-of-attempt decision, the retry's preparation.
 *
 * A class, its steps prototype methods: every open stream holds one turn, idle or not, and a
 * closure per step (with the context they share) cost more than the one object. It is also the
 * scanner's options (`onUnknownTool` is a method): no options object or closure per turn.
 *
 * The listener of `input.signal` is the one closure, made outside the class ({@link forwardAbort})
 * and reaching the turn's controller and pending race only: with the turn itself as the listener
 * (`handleEvent`), or an arrow function made in the constructor, every turn's whole graph
 * outlived the young-generation GCs until the next full one (measured: 3 KB a turn promoted;
 * `test/young-garbage.test.ts`, the turn with a signal).
 */
class Turn<Raw> implements AttemptScannerOptions {
  readonly scanner: AttemptScanner<Raw>
  /** Reused for every part (no allocation per delta). */
  readonly out: OutputPart<Raw>[] = []
  /**
   * A signal, and no `input.settlesOnAbort`: every part is raced against the signal (`next`), so
   * that an abort ends the turn at once even if the attempt ignores it.
   */
  readonly raced: boolean
  /**
   * A signal and `input.settlesOnAbort`: the attempt settles once its signal aborts, and the
   * turn looks at the signal when it does (no race per part), ending the way the race would have.
   */
  readonly settlesOnAbort: boolean
  /** `input.finishRequired`: an attempt that ends without a `finish` part was cut short. */
  readonly finishRequired: boolean
  readonly tools: readonly string[]
  readonly formats: ResolvedRecoveryOptions["formats"]
  readonly maxHoldChars: number | undefined
  /**
   * The whole text only for those who read it: otherwise a stream holds the detector's
   * hold-back and withheld markup, not the response.
   */
  readonly keepText: boolean
  private readonly input: TurnInput<Raw>
  private readonly options: ResolvedRecoveryOptions
  private readonly signal: AbortSignal | undefined
  /** One controller for the whole turn: aborted by `input.signal`, or by the consumer stopping. */
  private readonly controller = new AbortController()
  /** Every event of the turn also goes to OpenTelemetry (a no-op without an SDK): made on the first. */
  private telemetry: TurnTelemetry | undefined
  private readonly found: MarkupSummary[] = []
  private done = false
  private instruction: string | undefined
  /** Retries this model call may still make: the turn's budget minus what earlier calls spent. */
  private readonly budget: number
  /** Corrected responses earlier calls of the turn got: the error message counts them. */
  private readonly recoveriesBefore: number
  /** Why the request cannot be retried at all (the plan's): the error message gives it. */
  private readonly noRetry: string | undefined
  /** The pending race's reject, which an abort settles at once (see {@link race}). */
  private readonly pending: PendingRace = { reject: undefined }
  /** Listens to `input.signal`: aborts the attempt and settles the pending race. */
  private readonly forward: (() => void) | undefined
  /** The request's model, for `persistFailed`. */
  private readonly model: string | undefined
  /**
   * A malformed response that ends the turn (no retry left, or markup naming no offered tool),
   * for `persistFailed` once {@link decide} is done (see {@link persistFinal}).
   */
  private final: FailedResponse | undefined
  /** What a streamed turn has shown (`input.streaming`): a retry continues after it. */
  readonly shown: ShownText | undefined

  constructor(plan: RecoverPlan, input: TurnInput<Raw>, signal: AbortSignal | undefined) {
    const { options } = plan
    this.input = input
    this.options = options
    this.signal = signal
    this.tools = plan.tools
    this.formats = options.formats
    this.maxHoldChars = options.maxHoldChars
    this.keepText = options.persistFailed !== undefined || options.announcedCalls === "retry"
    this.settlesOnAbort = signal !== undefined && input.settlesOnAbort === true
    this.raced = signal !== undefined && !this.settlesOnAbort
    this.finishRequired = input.finishRequired === true
    this.shown = input.streaming === true ? new ShownText() : undefined
    this.budget = plan.budget
    this.recoveriesBefore = plan.recoveriesBefore
    this.noRetry = plan.noRetry
    this.model = plan.model
    if (signal?.aborted) this.controller.abort(signal.reason)
    else if (signal !== undefined) {
      this.forward = forwardAbort(signal, this.controller, this.pending)
      // Not `{ once: true }`: a signal aborts once anyway, `dispose` removes the listener, and
      // Node's EventTarget copies an options object into a new one of seven fields per call.
      signal.addEventListener("abort", this.forward, false)
    }
    this.scanner = createAttemptScanner<Raw>(this)
  }

  /** The scanner saw a structured call naming a tool that was not offered. */
  onUnknownTool(toolName: string, params: string): void {
    this.emit({ type: "unknown-tool-call", toolName, params })
  }

  private emit(event: RecoveryEvent): void {
    this.telemetry ??= createTurnTelemetry(this.model)
    this.telemetry.record(event)
    emitEvent(this.options, event)
  }

  /**
   * Settles like `promise`, or rejects with {@link ABORTED} as soon as the signal aborts: one
   * abort listener for the whole turn, not one per delta. Without a signal, the identity.
   */
  private race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.signal
    if (signal === undefined) return promise
    if (signal.aborted) {
      promise.catch(() => undefined)
      return Promise.reject(ABORTED)
    }
    return new Promise<T>((resolve, reject) => {
      this.pending.reject = reject
      promise.then(resolve, reject)
    })
  }

  /** The turn was aborted through `input.signal` (not by the consumer, who is gone then). */
  aborted(): boolean {
    return this.signal?.aborted === true
  }

  private abortError(round: number): ToolCallRecoveryError {
    return new ToolCallRecoveryError({
      code: "aborted",
      rounds: round + 1,
      recoveriesBefore: this.recoveriesBefore,
      markup: this.found,
      cause: this.signal?.reason,
    })
  }

  private fail(round: number, error: unknown): unknown {
    this.emit({ type: "recovery-failed", round, error })
    return error
  }

  /**
   * Starts attempt `round`: what `attempt` returned, raced against the signal. Throws the error
   * that ends the turn when it may not start; what `attempt` throws or rejects with is an error
   * of the attempt (`streamError`, with no iterator yet).
   */
  start(round: number): AsyncIterable<NormalizedPart<Raw>> | Promise<AsyncIterable<NormalizedPart<Raw>>> {
    if (this.aborted()) throw round > 0 ? this.fail(round, this.abortError(round)) : this.signal?.reason
    this.scanner.reset()
    const context: AttemptContext = { instruction: this.instruction, signal: this.controller.signal }
    if (!this.raced) {
      try {
        return this.input.attempt(round, context)
      } catch (error) {
        // An error of the attempt, mapped like its rejections.
        return Promise.reject(error)
      }
    }
    return this.race(Promise.resolve().then(() => this.input.attempt(round, context)))
  }

  /** The started attempt's iterator. Throws an error of the attempt. */
  iterate(iterable: AsyncIterable<NormalizedPart<Raw>>): AsyncIterator<NormalizedPart<Raw>> {
    // With `settlesOnAbort`: an abort while the attempt started ends the turn as the race would.
    if (this.settlesOnAbort && this.aborted()) throw ABORTED
    return iterable[Symbol.asyncIterator]()
  }

  /** The next part of the attempt, raced against the signal. */
  next(iterator: AsyncIterator<NormalizedPart<Raw>>): Promise<IteratorResult<NormalizedPart<Raw>>> {
    return this.race(iterator.next())
  }

  /** The error to throw for `error` from the attempt of `round`. */
  streamError(
    round: number,
    error: unknown,
    iterator: AsyncIterator<NormalizedPart<Raw>> | undefined,
  ): unknown {
    const recovering = round > 0
    // With `settlesOnAbort`, what the attempt settled with after the abort is what the race would
    // have beaten: the same ending.
    if (error === ABORTED || (this.settlesOnAbort && this.aborted())) {
      // Our race won: the provider did not react to the signal. Close it without waiting.
      closeQuietly(iterator)
      return recovering ? this.fail(round, this.abortError(round)) : this.signal?.reason
    }
    if (recovering && this.aborted()) return this.fail(round, this.abortError(round))
    // A provider error: unchanged, never retried.
    return recovering ? this.fail(round, error) : error
  }

  /** The consumer stopped at a `yield`: aborts the attempt and closes its (idle) iterator. */
  async stop(iterator: AsyncIterator<NormalizedPart<Raw>> | undefined): Promise<void> {
    this.controller.abort(consumerStopped())
    // The attempt's iterator is idle (we were suspended at a yield), so closing it is prompt.
    await closeIdle(iterator)
  }

  /**
   * The end-of-attempt decision: the retry to prepare ({@link prepare}), or `undefined` when the
   * turn is over (the held finish part and what follows it are then in `out`). Throws the error
   * that ends the turn. Synchronous: a clean attempt ends the turn with no promise made.
   */
  decide(
    round: number,
    report: AttemptReport<Raw>,
    failure: ProviderFailure | undefined,
    truncated: boolean,
  ): Retry | undefined {
    const { options, tools, budget } = this
    const failed = failure !== undefined
    const judgement = judgeAttempt(report, options, failed)
    // Made on the first markup: a clean attempt has none.
    let recoverable: Markup[] | undefined
    for (const { markup, channel, text, reason, recoverable: isRecoverableMarkup } of judgement.markup) {
      if (isRecoverableMarkup) {
        recoverable ??= []
        recoverable.push(markup)
      }
      this.emit({
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
      // Markup naming no offered tool is withheld from the answer: the failed log holds it.
      if (options.persistFailed !== undefined) {
        const notOffered = judgement.markup.filter((judged) => judged.reason === "not-offered")
        if (notOffered.length > 0)
          this.final = this.failed(
            round,
            report,
            "not-offered",
            notOffered.map((judged) => judged.markup),
          )
      }
      // A retry that ended in a provider error inside its stream failed, like one that threw.
      if (round > 0) {
        this.emit(
          failure === undefined
            ? { type: "recovery-succeeded", round }
            : { type: "recovery-failed", round, error: failure.error },
        )
      }
      this.scanner.release(this.out)
      this.done = true
      return undefined
    }

    recoverable ??= []
    const { found } = this
    for (const markup of recoverable) found.push(summarizeMarkup(markup, round))
    // Cut off by the output limit with a call still open: its own outcome, not a format mistake.
    const cutOff = truncated && recoverable.some((markup) => !markup.complete)
    if (round >= budget) {
      const code = cutOff ? "truncated-call" : "repeated-markup"
      if (options.persistFailed !== undefined)
        this.final = this.failed(round, report, cutOff ? "truncated" : "repeated", recoverable)
      throw this.fail(
        round,
        new ToolCallRecoveryError({
          code,
          rounds: round + 1,
          recoveriesBefore: this.recoveriesBefore,
          noRetry: this.noRetry,
          markup: found,
        }),
      )
    }
    if (this.aborted()) throw this.fail(round, this.abortError(round))
    this.emit({
      type: "recovery-started",
      round: round + 1,
      markup: recoverable,
      ...(announced === undefined ? {} : { announced }),
    })
    return { recoverable, announced, cutOff }
  }

  /**
   * Prepares the retry {@link decide} chose: `persistFailed`, then the instruction. Returns the
   * retry's `attempt-start` part; throws the error that ends the turn.
   */
  async prepare(
    round: number,
    report: AttemptReport<Raw>,
    { recoverable, announced, cutOff }: Retry,
  ): Promise<OutputPart<Raw>> {
    const { options, tools, found } = this
    const next = round + 1
    const persist = options.persistFailed
    // An announced call's retry (no markup) has no malformed response to keep: the record needs
    // a markup and its format.
    if (persist !== undefined && recoverable.length > 0) {
      const failed = this.failed(round, report, "retried", recoverable)
      try {
        await this.race(Promise.resolve().then(() => persist(failed)))
      } catch (error) {
        if (error === ABORTED || this.aborted()) throw this.fail(round, this.abortError(round))
        throw this.fail(
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
    const shown = this.shown?.retry()
    this.instruction = resolveInstruction(options, {
      round: next,
      markup: recoverable,
      tools,
      truncated: cutOff,
      ...(announced === undefined ? {} : { announced }),
      ...(shown === undefined ? {} : { shown }),
    })
    return { type: "attempt-start", round: next, discarded: report.discarded }
  }

  /** The record of a malformed response of `round`, for `persistFailed`. */
  private failed(
    round: number,
    report: AttemptReport<Raw>,
    outcome: FailedOutcome,
    markup: readonly Markup[],
  ): FailedResponse {
    return {
      round,
      rounds: round + 1,
      recoveriesBefore: this.recoveriesBefore,
      outcome,
      format: markup[0]!.format,
      tools: this.tools,
      ...(this.model === undefined ? {} : { model: this.model }),
      text: report.text,
      reasoning: report.reasoning,
      markup,
    }
  }

  /**
   * Hands the malformed response that ended the turn (if any) to `persistFailed`. The turn's
   * outcome is already decided: a hook that fails or hangs past an abort changes nothing.
   */
  async persistFinal(): Promise<void> {
    const failed = this.final
    const persist = this.options.persistFailed
    this.final = undefined
    if (failed === undefined || persist === undefined) return
    try {
      await this.race(Promise.resolve().then(() => persist(failed)))
    } catch {
      // The turn ends as decided; a host that must know wraps its own hook (the proxy does).
    }
  }

  /** A record {@link decide} left for {@link persistFinal}. */
  hasFinal(): boolean {
    return this.final !== undefined
  }

  /** The turn ended, whichever way. */
  dispose(): void {
    this.telemetry?.end()
    if (this.forward !== undefined) this.signal?.removeEventListener("abort", this.forward)
    // Consumer stopped between attempts (at `attempt-start`), or an error ended the turn: no
    // attempt may go on running in the background.
    if (!this.done && !this.controller.signal.aborted) this.controller.abort(consumerStopped())
  }
}

/**
 * The turn's loop of rounds, parts and yields. A consumer that stops reading at a part (`return()`)
 * stops the open attempt (aborted, its iterator closed) in the inner `finally`; `throw()` at a
 * part is an error of the attempt; the runtime queues calls made while one is pending (from an
 * event hook).
 */
async function* turn<Raw>(t: Turn<Raw>): AsyncGenerator<OutputPart<Raw>, void, undefined> {
  const { scanner, out, raced, settlesOnAbort, finishRequired, shown } = t
  try {
    for (let round = 0; ; round++) {
      // Throws the error that ends the turn, as it is, when the attempt may not start.
      const started = t.start(round)
      let iterator: AsyncIterator<NormalizedPart<Raw>> | undefined
      let finished = false
      let failure: ProviderFailure | undefined
      let truncated = false
      let sawFinish = false
      try {
        iterator = t.iterate(await started)
        for (;;) {
          // No race without a signal, nor with `settlesOnAbort`: the hot path stays one await per
          // part. With `settlesOnAbort` the signal is read once the part arrives: an abort ends the
          // turn as the race would have (the part is dropped, the error is the same).
          const step = raced ? await t.next(iterator) : await iterator.next()
          if (settlesOnAbort && t.aborted()) throw ABORTED
          if (step.done === true) break
          const part = step.value
          if (part.type === "finish") {
            sawFinish = true
            if (part.failed === true) failure ??= { error: part.raw }
            if (part.truncated === true) truncated = true
          } else if (part.type === "other" && part.failed === true) failure ??= { error: part.raw }
          const whole = scanner.push(part, out)
          if (whole !== undefined) yield shown === undefined ? whole : shown.show(whole)
          else if (out.length > 0) {
            for (let i = 0; i < out.length; i++) yield shown === undefined ? out[i]! : shown.show(out[i]!)
            out.length = 0
          }
        }
        finished = true
      } catch (error) {
        finished = true
        throw t.streamError(round, error, iterator)
      } finally {
        // Reached unfinished only when the consumer stopped reading at one of our `yield`s.
        if (!finished) await t.stop(iterator)
      }
      // Cut short: the stream closed before the finish its protocol always sends. Judged like a
      // provider error (never retried), whatever markup it held.
      if (finishRequired && !sawFinish) failure ??= { error: new Error(CUT_SHORT) }
      const report = scanner.end(out)
      for (let i = 0; i < out.length; i++) yield shown === undefined ? out[i]! : shown.show(out[i]!)
      out.length = 0
      let retry: Retry | undefined
      try {
        retry = t.decide(round, report, failure, truncated)
      } catch (error) {
        if (t.hasFinal()) await t.persistFinal()
        throw error
      }
      for (let i = 0; i < out.length; i++) yield shown === undefined ? out[i]! : shown.show(out[i]!)
      out.length = 0
      if (retry === undefined) {
        if (t.hasFinal()) await t.persistFinal()
        return
      }
      // Nothing was released for a retry (`out` was empty): the parts' order is the same.
      yield await t.prepare(round, report, retry)
    }
  } finally {
    t.dispose()
  }
}

/** A retry {@link Turn.decide} chose, for {@link Turn.prepare}. */
interface Retry {
  readonly recoverable: readonly Markup[]
  readonly announced: string | undefined
  /** Cut off by the output limit with a call still open. */
  readonly cutOff: boolean
}

/** Where an abort rejects the part being waited for (see `Turn.race`). */
interface PendingRace {
  reject: ((reason: unknown) => void) | undefined
}

/**
 * The listener of a turn's `signal`: aborts the attempt's `controller` and settles the pending
 * race. Made here, outside the turn, so that it reaches these two objects only (see {@link Turn}).
 */
function forwardAbort(signal: AbortSignal, controller: AbortController, pending: PendingRace): () => void {
  return () => {
    controller.abort(signal.reason)
    pending.reject?.(ABORTED)
  }
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
