import type { NormalizedPart } from "@tool-rescue/recovery"
import { Cause, Channel, type Context, Effect, Exit, Pull, Scope, type Stream } from "effect"
import { InnerFailure } from "./inner-failure.ts"
import { normalizeStreamPart, type StreamPart } from "./splice-parts.ts"

type Step = IteratorResult<NormalizedPart<StreamPart>, undefined>
type Chunk = ReadonlyArray<StreamPart>

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined }

/**
 * One streamed attempt as normalized parts, for `runTurn`. The stream's failure is thrown as an
 * {@link InnerFailure} (its whole cause); `onPart` sees each of the stream's parts (the first
 * attempt records the approvals resolved before the call). Aborting `signal` interrupts the
 * stream at once, even while a `next()` is pending; that `next()` then ends the attempt.
 *
 * A hand-written iterator over the stream's pull, not `Stream.toAsyncIterableWith` wrapped in
 * async generators: it is on the path of every part. One fiber per chunk (the conversion forks
 * one and awaits it with another), the parts of a chunk handed out without a fiber, and no
 * generator resume per part.
 */
export function attemptStream(
  stream: Stream.Stream<StreamPart, unknown, unknown>,
  context: Context.Context<never>,
  signal: AbortSignal,
  onPart?: (part: StreamPart) => void,
): AsyncIterableIterator<NormalizedPart<StreamPart>> {
  const scope = Scope.makeUnsafe()
  // Interrupts the pull in flight: the turn's signal, or our own `return()`.
  const stopped = new AbortController()
  const stop = () => stopped.abort()
  if (signal.aborted) stop()
  else signal.addEventListener("abort", stop, { once: true })
  // The stream's services are all in `context`. Forced cast: the decorated service's streams are
  // typed to need `unknown` (see `untyped-model.ts`), and the context is the caller's own.
  const run = Effect.runPromiseExitWith(context) as <A, E>(
    effect: Effect.Effect<A, E, unknown>,
    options?: { readonly signal?: AbortSignal },
  ) => Promise<Exit.Exit<A, E>>
  const opened = run(Channel.toPullScoped(stream.channel, scope))
  let pull: Pull.Pull<Chunk, unknown, void, unknown> | undefined
  let chunk: Chunk = []
  let at = 0
  /** The pull in flight (its exit: never rejects), and none once it has settled. */
  let inflight: Promise<unknown> | undefined
  let closing: Promise<Step> | undefined

  const take = (): Step => {
    // Non-null: `next()` takes only while `at < chunk.length`, and a pulled chunk is never empty.
    const part = chunk[at++]!
    onPart?.(part)
    return { done: false, value: normalizeStreamPart(part) }
  }
  const onExit = (exit: Exit.Exit<Chunk, unknown>): Step | Promise<Step> => {
    inflight = undefined
    if (Exit.isSuccess(exit)) {
      chunk = exit.value
      at = 0
      return take()
    }
    // The end of the stream, or our own interruption: the attempt is over.
    if (Pull.isDoneCause(exit.cause) || (stopped.signal.aborted && Cause.hasInterruptsOnly(exit.cause))) {
      return close()
    }
    return close(exit).then(() => Promise.reject(new InnerFailure(exit.cause)))
  }
  const pullNext = (): Promise<Step> => {
    if (pull === undefined) {
      return opened.then((exit) => {
        if (Exit.isFailure(exit)) return onExit(Exit.failCause(exit.cause))
        pull = exit.value
        return pullNext()
      })
    }
    const exit = run(pull, { signal: stopped.signal })
    inflight = exit
    return exit.then(onExit)
  }
  const close = (exit: Exit.Exit<unknown, unknown> = Exit.void): Promise<Step> => {
    if (closing !== undefined) return closing
    stopped.abort()
    signal.removeEventListener("abort", stop)
    // The scope closes once nothing runs in it any more (the pull in flight was interrupted).
    const settled = Promise.all([opened, inflight])
    closing = settled.then(() => run(Scope.close(scope, exit)).then(() => DONE))
    return closing
  }
  return {
    next(): Promise<Step> {
      if (closing !== undefined) return closing
      if (at < chunk.length) return Promise.resolve(take())
      return pullNext()
    },
    return: () => close(),
    [Symbol.asyncIterator]() {
      return this
    },
  }
}
