import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Stream } from "effect"
import { attemptStream } from "../src/attempt-stream.ts"
import { InnerFailure } from "../src/inner-failure.ts"
import type { StreamPart } from "../src/splice-parts.ts"

const delta = (text: string) => ({ type: "text-delta", id: "t", delta: text }) as unknown as StreamPart

/** A provider stream: `parts` (in chunks of two), then `then`, with its finalizer recorded. */
function provider(parts: readonly StreamPart[], then: Stream.Stream<StreamPart, unknown> = Stream.empty) {
  const state = { finalized: false }
  const chunks: StreamPart[][] = []
  for (let i = 0; i < parts.length; i += 2) chunks.push(parts.slice(i, i + 2))
  const stream = Stream.fromArrays(...chunks).pipe(
    Stream.concat(then),
    Stream.ensuring(Effect.sync(() => (state.finalized = true))),
  )
  return { stream, state }
}

const texts = async (iterator: AsyncIterator<{ type: string; text?: string }>) => {
  const out: string[] = []
  for (let step = await iterator.next(); step.done !== true; step = await iterator.next())
    out.push(step.value.text ?? step.value.type)
  return out
}

describe("attemptStream", () => {
  it("hands out every part of every chunk in order, then closes the stream", async () => {
    const { stream, state } = provider([delta("a"), delta("b"), delta("c")])
    const seen: StreamPart[] = []
    const parts = attemptStream(stream, Context.empty(), new AbortController().signal, (part) =>
      seen.push(part),
    )
    expect(await texts(parts)).toEqual(["a", "b", "c"])
    expect(seen).toHaveLength(3)
    expect(state.finalized).toBe(true)
  })

  it("throws the stream's failure as an InnerFailure with its cause, after closing it", async () => {
    const { stream, state } = provider([delta("a")], Stream.fail("boom"))
    const parts = attemptStream(stream, Context.empty(), new AbortController().signal)
    expect((await parts.next()).value?.type).toBe("text")
    const error = await parts.next().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InnerFailure)
    expect(JSON.stringify((error as InnerFailure).cause)).toContain("boom")
    expect(state.finalized).toBe(true)
    expect(await parts.next()).toEqual({ done: true, value: undefined })
  })

  it("return() while a next() is pending interrupts the pull, closes the stream, and ends that next()", async () => {
    const { stream, state } = provider([delta("a")], Stream.never)
    const parts = attemptStream(stream, Context.empty(), new AbortController().signal)
    expect((await parts.next()).value?.type).toBe("text")
    const pending = parts.next()
    await parts.return?.()
    expect(state.finalized).toBe(true)
    expect(await pending).toEqual({ done: true, value: undefined })
  })

  it("aborting the signal while a next() is pending ends the attempt and closes the stream", async () => {
    const { stream, state } = provider([], Stream.never)
    const controller = new AbortController()
    const parts = attemptStream(stream, Context.empty(), controller.signal)
    const pending = parts.next()
    controller.abort()
    expect(await pending).toEqual({ done: true, value: undefined })
    expect(state.finalized).toBe(true)
  })
})
