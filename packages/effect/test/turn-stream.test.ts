import { describe, expect, it } from "@effect/vitest"
import type { OutputPart } from "@tool-rescue/recovery"
import { Effect, Exit, Stream } from "effect"
import { turnStream } from "../src/turn-stream.ts"

/** A turn's output as an iterator over `parts`, recording whether it was closed. */
function turn(parts: readonly OutputPart<string>[], failure?: unknown) {
  const state = { returned: false, pulled: 0 }
  let at = 0
  const iterator: AsyncIterator<OutputPart<string>> = {
    next: async () => {
      state.pulled++
      if (at < parts.length) return { done: false, value: parts[at++]! }
      if (failure !== undefined) throw failure
      return { done: true, value: undefined }
    },
    return: async () => {
      state.returned = true
      return { done: true, value: undefined }
    },
  }
  return { iterator, state }
}

const text = (value: string): OutputPart<string> => ({ type: "text", text: value })
const boundary: OutputPart<string> = { type: "attempt-start", round: 1, discarded: [] }
const map = (part: OutputPart<string>) => (part.type === "text" ? part.text : undefined)

describe("turnStream", () => {
  it("streams the mapped parts in order, dropping those that map to nothing", async () => {
    const { iterator } = turn([text("a"), boundary, boundary, text("b")])
    expect(await Effect.runPromise(Stream.runCollect(turnStream(iterator, map)))).toEqual(["a", "b"])
  })

  it("fails with the turn's error", async () => {
    const { iterator } = turn([text("a")], "boom")
    const exit = await Effect.runPromiseExit(Stream.runCollect(turnStream(iterator, map)))
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("boom")
  })

  it("ends the turn (return()) when its consumer stops early, without reading ahead", async () => {
    const { iterator, state } = turn([text("a"), text("b"), text("c")])
    expect(await Effect.runPromise(Stream.runCollect(Stream.take(turnStream(iterator, map), 1)))).toEqual([
      "a",
    ])
    expect(state.returned).toBe(true)
    expect(state.pulled).toBe(1)
  })
})
