import type { OutputPart } from "@tool-rescue/recovery"
import { Cause, Channel, Effect, Scope, Stream } from "effect"

/**
 * The parts `runTurn` yields, mapped, as an Effect `Stream`; the parts that map to nothing
 * (attempt boundaries) are dropped. A rejection of `parts` fails the stream with that error.
 * When the stream ends early (interrupted, or its consumer done), `parts.return()` ends the turn.
 *
 * A pull over the iterator, not `Stream.fromAsyncIterable` over an async generator: it is on the
 * path of every part, and that conversion adds a `tryPromise`, a `finally` and a mapping channel
 * per part, the generator a resume and a promise.
 */
export function turnStream<Raw, Out>(
  parts: AsyncIterator<OutputPart<Raw>>,
  map: (part: OutputPart<Raw>) => Out | undefined,
): Stream.Stream<Out, unknown> {
  let pulling = false
  const pull = Effect.callback<readonly [Out], unknown>((resume) => {
    pulling = true
    const onStep = (step: IteratorResult<OutputPart<Raw>>): void => {
      if (step.done === true) {
        pulling = false
        resume(Cause.done())
        return
      }
      const mapped = map(step.value)
      if (mapped === undefined) {
        parts.next().then(onStep, onError)
        return
      }
      pulling = false
      resume(Effect.succeed([mapped]))
    }
    const onError = (error: unknown): void => {
      pulling = false
      resume(Effect.fail(error))
    }
    parts.next().then(onStep, onError)
  })
  return Stream.fromChannel(
    Channel.fromTransform((_, scope) =>
      Effect.as(
        Scope.addFinalizer(
          scope,
          // `return()` may not settle until a pending `next()` does: only await it when idle.
          Effect.suspend(() =>
            pulling
              ? Effect.sync(() => void parts.return?.().catch(() => undefined))
              : Effect.promise(async () => {
                  await parts.return?.()
                }),
          ),
        ),
        pull,
      ),
    ),
  )
}
