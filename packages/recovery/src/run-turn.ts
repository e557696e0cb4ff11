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
import { budgetLeft } from "./plan-turn.ts"
import { type ResolvedRecoveryOptions, resolveRecoveryOptions } from "./resolve-options.ts"
import { type MarkupSummary, summarizeMarkup, ToolCallRecoveryError } from "./tool-call-recovery-error.ts"
import { createTurnTelemetry, type TurnTelemetry } from "./turn-telemetry.ts"
import type { AttemptContext, NormalizedPart, OutputPart, RecoveryEvent, TurnInput } from "./types.ts"

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
 * `"aborted"` with `signal.reason` as `cause`. Every part is raced against the signal for that,
 * unless `input.settlesOnAbort` says the attempts stop promptly on their own (the same endings).
 * A consumer that stops reading (`break`, `return()`) ends the turn silently: the in-flight
 * attempt is aborted and closed.
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
  if (!Array.isArray(input.tools) || !input.tools.every(isString)) {
    throw new TypeError("tool-rescue: runTurn needs tools, an array of tool names")
  }
  const signal = input.signal
  if (signal !== undefined && !isAbortSignal(signal))
    throw new TypeError("tool-rescue: signal must be an AbortSignal")
  // An async generator in all but its class: the cast only spares it declaring what a runtime's
  // generators may add (`Symbol.asyncDispose`), which it inherits from their prototype.
  return new TurnStream(
    new Turn(input, resolveRecoveryOptions(input.options), signal),
  ) as unknown as AsyncGenerator<OutputPart<Raw>, void, undefined>
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
 * The turn's policy, apart from its iteration ({@link TurnStream}): starting an attempt, mapping
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
  /** The pending race's reject, which an abort settles at once (see {@link race}). */
  private readonly pending: PendingRace = { reject: undefined }
  /** Listens to `input.signal`: aborts the attempt and settles the pending race. */
  private readonly forward: (() => void) | undefined

  constructor(input: TurnInput<Raw>, options: ResolvedRecoveryOptions, signal: AbortSignal | undefined) {
    this.input = input
    this.options = options
    this.signal = signal
    this.tools = [...input.tools]
    this.formats = options.formats
    this.maxHoldChars = options.maxHoldChars
    this.keepText = options.persistFailed !== undefined || options.announcedCalls === "retry"
    this.settlesOnAbort = signal !== undefined && input.settlesOnAbort === true
    this.raced = signal !== undefined && !this.settlesOnAbort
    this.finishRequired = input.finishRequired === true
    this.budget = budgetLeft(options, input.recoveriesBefore)
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
    this.telemetry ??= createTurnTelemetry()
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
      throw this.fail(round, new ToolCallRecoveryError({ code, rounds: round + 1, markup: found }))
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
    if (persist !== undefined) {
      try {
        await this.race(
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
    this.instruction = resolveInstruction(options, {
      round: next,
      markup: recoverable,
      tools,
      truncated: cutOff,
      ...(announced === undefined ? {} : { announced }),
    })
    return { type: "attempt-start", round: next, discarded: report.discarded }
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

type Result<Raw> = IteratorResult<OutputPart<Raw>, void>

/**
 * Where a {@link TurnStream} is between two calls, named after the generator it replaces:
 * - `fresh`: not started (a `return()` ends it without starting an attempt);
 * - waiting: `starting` (for the attempt), `reading` (for its next part), `preparing` (for the
 *   retry's `persistFailed`), `stopping` (for the attempt to close);
 * - suspended at a yield: `at-part` (a part of the open attempt: leaving now stops it), `at-end`
 *   (what the attempt's end released), `at-decision` (what the decision released), `at-start`
 *   (the retry's `attempt-start`);
 * - `done`.
 */
type Phase =
  | "fresh"
  | "starting"
  | "reading"
  | "preparing"
  | "stopping"
  | "at-part"
  | "at-end"
  | "at-decision"
  | "at-start"
  | "done"

/** A call made while another is pending waits for it, as a generator queues its requests. */
type Call = "next" | "return" | "throw"

interface QueuedCall<Raw> {
  readonly call: Call
  readonly argument: unknown
  readonly resolve: (result: Result<Raw>) => void
  readonly reject: (error: unknown) => void
}

/**
 * The turn as the async generator `runTurn` returns: the loop of rounds, parts and yields as
 * named phases and one promise continuation per part. An `async function*` made a request, its
 * promise, an await and a result per part (about twice the bytes per part of this): it was most
 * of what a clean turn allocated. It behaves as that generator did: a part is yielded as soon as
 * it is released; `return()` at a yield stops the open attempt (aborts it and closes its
 * iterator), then ends the turn; `throw()` at a part ends the attempt with that error, mapped as
 * an error of the attempt; calls made while one is pending wait their turn; a turn that ended
 * answers `{ done: true }`.
 */
class TurnStream<Raw> implements AsyncIterator<OutputPart<Raw>, void, undefined> {
  private readonly t: Turn<Raw>
  private phase: Phase = "fresh"
  /** A call is running synchronously (an `onEvent` hook calling back in must wait too). */
  private executing = false
  /** Calls made while another was pending, in order (made on the first). */
  private queue: QueuedCall<Raw>[] | undefined
  /** The queue is to be served once `last` settles. */
  private pumping = false
  /** The promise of the last call that ran: the queue is served once it settled. */
  private last: Promise<unknown> | undefined
  private round = 0
  private iterator: AsyncIterator<NormalizedPart<Raw>> | undefined
  private failure: ProviderFailure | undefined
  private truncated = false
  private sawFinish = false
  /** Index in `t.out` of the next part to yield; `out` is emptied once every part was. */
  private at = 0
  private report: AttemptReport<Raw> | undefined
  private retry: Retry | undefined
  // The two continuations of every wait, bound once per turn: no closure per part.
  private readonly onSettled: (value: unknown) => Result<Raw> | Promise<Result<Raw>>
  private readonly onFailed: (error: unknown) => never

  constructor(t: Turn<Raw>) {
    this.t = t
    this.onSettled = this.settled.bind(this)
    this.onFailed = this.failed.bind(this)
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<Result<Raw>> {
    return this.busy() ? this.enqueue("next", undefined) : this.run("next", undefined)
  }

  return(value?: void | PromiseLike<void>): Promise<Result<Raw>> {
    return this.busy() ? this.enqueue("return", value) : this.run("return", value)
  }

  throw(error?: unknown): Promise<Result<Raw>> {
    return this.busy() ? this.enqueue("throw", error) : this.run("throw", error)
  }

  /** Waiting for a step, running one, or calls are queued: a new call waits its turn. */
  private busy(): boolean {
    return this.executing || (this.queue !== undefined && this.queue.length > 0) || this.waiting()
  }

  /** The turn waits for something (see {@link Phase}): no call may run now. */
  private waiting(): boolean {
    const { phase } = this
    return phase === "starting" || phase === "reading" || phase === "preparing" || phase === "stopping"
  }

  private run(call: Call, argument: unknown): Promise<Result<Raw>> {
    const result = this.dispatch(call, argument)
    this.last = result
    // Calls made while it ran (from an event hook) are served once it settled.
    if (this.queue !== undefined && this.queue.length > 0 && !this.pumping) this.schedule()
    return result
  }

  private enqueue(call: Call, argument: unknown): Promise<Result<Raw>> {
    return new Promise<Result<Raw>>((resolve, reject) => {
      this.queue ??= []
      this.queue.push({ call, argument, resolve, reject })
      // While a call runs, its promise is not made yet: `run` schedules the queue after it.
      if (!this.executing && !this.pumping) this.schedule()
    })
  }

  /** Serves the queue once the last call settled (rare: a closure per wait is fine here). */
  private schedule(): void {
    this.pumping = true
    const serve = () => this.serve()
    ;(this.last ?? Promise.resolve()).then(serve, serve)
  }

  private serve(): void {
    this.pumping = false
    const queue = this.queue
    if (queue === undefined || queue.length === 0) return
    // The last call settled, so the turn is at a yield or done; a call queued behind it may
    // have started another wait meanwhile: serve after that one.
    if (this.waiting()) {
      this.schedule()
      return
    }
    const head = queue.shift()!
    this.run(head.call, head.argument).then(head.resolve, head.reject)
    if (queue.length > 0 && !this.pumping) this.schedule()
  }

  private dispatch(call: Call, argument: unknown): Promise<Result<Raw>> {
    this.executing = true
    try {
      const result =
        call === "next" ? this.advance() : call === "return" ? this.leave(argument) : this.thrown(argument)
      return result instanceof Promise ? result : Promise.resolve(result)
    } catch (error) {
      return Promise.reject(error)
    } finally {
      this.executing = false
    }
  }

  /** `next()`: goes on from where the turn is. */
  private advance(): Result<Raw> | Promise<Result<Raw>> {
    const phase = this.phase
    switch (phase) {
      case "fresh":
        return this.begin(0)
      case "at-part":
        return this.release("at-part") ?? this.read()
      case "at-end":
        return this.release("at-end") ?? this.decide()
      case "at-decision":
        return this.release("at-decision") ?? this.close()
      case "at-start":
        return this.begin(this.round + 1)
      case "done":
        return { done: true, value: undefined }
      case "starting":
      case "reading":
      case "preparing":
      case "stopping":
        // Never: a call made while waiting is queued (`busy`).
        throw new Error(`tool-rescue: turn called while ${phase}`)
      default:
        return phase satisfies never
    }
  }

  /** `return()`: leaves the turn at the yield it is suspended at. */
  private leave(value: unknown): Promise<Result<Raw>> {
    const { t } = this
    const phase = this.phase
    if (phase === "at-part") {
      // The attempt is open, its iterator idle (we are at a yield): stop it, then end the turn.
      this.phase = "stopping"
      return t.stop(this.iterator).then(
        () => this.ended(value),
        (error: unknown) => this.fail(error),
      )
    }
    // Not started or over: nothing runs (a generator that never started runs no `finally`).
    if (phase === "fresh" || phase === "done") {
      this.phase = "done"
      return Promise.resolve(value).then(doneWith)
    }
    return this.ended(value)
  }

  private ended(value: unknown): Promise<Result<Raw>> {
    this.phase = "done"
    this.t.dispose()
    return Promise.resolve(value).then(doneWith)
  }

  /** `throw()`: at a part it is an error of the attempt; elsewhere it ends the turn as it is. */
  private thrown(error: unknown): never {
    const phase = this.phase
    if (phase === "at-part") this.readFailed(error)
    if (phase === "fresh") this.phase = "done"
    return this.fail(error)
  }

  /** Ends the turn with `error` (once: every later call answers `done`). */
  private fail(error: unknown): never {
    if (this.phase !== "done") {
      this.phase = "done"
      this.t.dispose()
    }
    throw error
  }

  /**
   * What the turn waited for arrived. Each waiting phase waits for one kind of value (hence
   * the casts): `starting` the attempt's iterable, `reading` its next step, `preparing` the
   * retry's `attempt-start`.
   */
  private settled(value: unknown): Result<Raw> | Promise<Result<Raw>> {
    const phase = this.phase
    switch (phase) {
      case "starting":
        return this.started(value as AsyncIterable<NormalizedPart<Raw>>)
      case "reading":
        return this.part(value as IteratorResult<NormalizedPart<Raw>>)
      case "preparing":
        return this.prepared(value as OutputPart<Raw>)
      default:
        throw new Error(`tool-rescue: a wait settled while ${phase}`)
    }
  }

  /** What the turn waited for failed: an error of the attempt while it starts or is read. */
  private failed(error: unknown): never {
    switch (this.phase) {
      case "starting":
        return this.startFailed(error)
      case "reading":
        return this.readFailed(error)
      default:
        return this.fail(error)
    }
  }

  private begin(round: number): Promise<Result<Raw>> {
    this.round = round
    this.phase = "starting"
    let started: AsyncIterable<NormalizedPart<Raw>> | Promise<AsyncIterable<NormalizedPart<Raw>>>
    try {
      started = this.t.start(round)
    } catch (error) {
      // The turn may not start the attempt: the error that ends it, as it is.
      return this.fail(error)
    }
    return (started instanceof Promise ? started : Promise.resolve(started)).then(
      this.onSettled,
      this.onFailed,
    )
  }

  private started(iterable: AsyncIterable<NormalizedPart<Raw>>): Result<Raw> | Promise<Result<Raw>> {
    let iterator: AsyncIterator<NormalizedPart<Raw>>
    try {
      iterator = this.t.iterate(iterable)
    } catch (error) {
      return this.startFailed(error)
    }
    this.iterator = iterator
    this.failure = undefined
    this.truncated = false
    this.sawFinish = false
    return this.read()
  }

  /**
   * Waits for the attempt's next part. No race without a signal, nor with `settlesOnAbort`:
   * the hot path is one promise continuation per part.
   */
  private read(): Promise<Result<Raw>> {
    this.phase = "reading"
    const { t } = this
    const iterator = this.iterator!
    let step: Promise<IteratorResult<NormalizedPart<Raw>>>
    try {
      step = t.raced ? t.next(iterator) : iterator.next()
    } catch (error) {
      return this.readFailed(error)
    }
    return (step instanceof Promise ? step : Promise.resolve(step)).then(this.onSettled, this.onFailed)
  }

  private part(step: IteratorResult<NormalizedPart<Raw>>): Result<Raw> | Promise<Result<Raw>> {
    const { t } = this
    const out = t.out
    let whole: NormalizedPart<Raw> | undefined
    let ended = false
    try {
      // With `settlesOnAbort` the signal is read once the part arrives: an abort ends the turn
      // as the race would have (the part is dropped, the error is the same).
      if (t.settlesOnAbort && t.aborted()) throw ABORTED
      ended = step.done === true
    } catch (error) {
      return this.readFailed(error)
    }
    // The attempt's end is outside its error mapping (what throws there ends the turn as it is).
    if (ended) return this.endAttempt()
    try {
      const part = step.value as NormalizedPart<Raw>
      if (part.type === "finish") {
        this.sawFinish = true
        if (part.failed === true) this.failure ??= { error: part.raw }
        if (part.truncated === true) this.truncated = true
      } else if (part.type === "other" && part.failed === true) this.failure ??= { error: part.raw }
      whole = t.scanner.push(part, out)
    } catch (error) {
      return this.readFailed(error)
    }
    if (whole !== undefined) {
      this.phase = "at-part"
      return { done: false, value: whole }
    }
    return this.release("at-part") ?? this.read()
  }

  /** An error of the open attempt (its own, or ours): mapped, and the turn ends with it. */
  private readFailed(error: unknown): never {
    return this.attemptFailed(error, this.iterator)
  }

  /** An error of the attempt being started (no iterator yet). */
  private startFailed(error: unknown): never {
    return this.attemptFailed(error, undefined)
  }

  private attemptFailed(error: unknown, iterator: AsyncIterator<NormalizedPart<Raw>> | undefined): never {
    let mapped: unknown
    try {
      mapped = this.t.streamError(this.round, error, iterator)
    } catch (thrown) {
      return this.fail(thrown)
    }
    return this.fail(mapped)
  }

  /** The attempt's stream ended. Outside the part's error mapping: what throws here ends the turn. */
  private endAttempt(): Result<Raw> | Promise<Result<Raw>> {
    const { t } = this
    // Cut short: the stream closed before the finish its protocol always sends. Judged like a
    // provider error (never retried), whatever markup it held.
    if (t.finishRequired && !this.sawFinish) this.failure ??= { error: new Error(CUT_SHORT) }
    try {
      this.report = t.scanner.end(t.out)
    } catch (error) {
      return this.fail(error)
    }
    return this.release("at-end") ?? this.decide()
  }

  private decide(): Result<Raw> | Promise<Result<Raw>> {
    try {
      this.retry = this.t.decide(this.round, this.report!, this.failure, this.truncated)
    } catch (error) {
      return this.fail(error)
    }
    return this.release("at-decision") ?? this.close()
  }

  /** After the decision's parts: the turn is over, or the retry is prepared. */
  private close(): Result<Raw> | Promise<Result<Raw>> {
    const { retry } = this
    if (retry === undefined) {
      this.phase = "done"
      this.t.dispose()
      return { done: true, value: undefined }
    }
    // Nothing was released for a retry (`out` was empty): the parts' order is the same.
    this.phase = "preparing"
    return this.t.prepare(this.round, this.report!, retry).then(this.onSettled, this.onFailed)
  }

  private prepared(start: OutputPart<Raw>): Result<Raw> {
    this.phase = "at-start"
    return { done: false, value: start }
  }

  /**
   * The next part of `out` to yield, suspended at `phase`; `undefined` (and `out` emptied) once
   * every part was yielded.
   */
  private release(phase: Phase): Result<Raw> | undefined {
    const out = this.t.out
    if (this.at < out.length) {
      this.phase = phase
      return { done: false, value: out[this.at++]! }
    }
    out.length = 0
    this.at = 0
    return undefined
  }
}

// Its prototype chain is an async generator's, so it has what theirs have where the runtime
// has it (`Symbol.asyncDispose`, for `await using`, from Node 24).
Object.setPrototypeOf(
  TurnStream.prototype,
  Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}.prototype)),
)
// And it says what it is as theirs do (`Object.prototype.toString` gives `[object AsyncGenerator]`).
Object.defineProperty(TurnStream.prototype, Symbol.toStringTag, {
  value: "AsyncGenerator",
  configurable: true,
})

function doneWith(value: unknown): IteratorReturnResult<void> {
  return { done: true, value: value as undefined }
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

function isString(value: unknown): value is string {
  return typeof value === "string"
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as AbortSignal).aborted === "boolean" &&
    typeof (value as AbortSignal).addEventListener === "function"
  )
}
