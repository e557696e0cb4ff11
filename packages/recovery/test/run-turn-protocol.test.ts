/**
 * The iterator protocol of what `runTurn` returns, call by call, as an `async function*` answers
 * it (it is one; these tests also held a hand-written class to it while the turn was one): calls
 * made before the last settled wait their turn, `return()` and `throw()` at each kind of
 * suspension, and a turn that ended.
 */

import { type NormalizedPart, recoverToolCalls } from "@tool-rescue/recovery"
import { describe, expect, test } from "vitest"
import { type AttemptRecord, finish, type Step, scripted, text } from "./support/script.ts"

const HERMES = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>'

function turnOf(scripts: readonly (readonly Step<string>[])[], signal?: AbortSignal) {
  const attempts: AttemptRecord[] = []
  const turn = recoverToolCalls<string>({
    tools: ["read_file"],
    attempt: scripted(scripts, attempts),
    ...(signal === undefined ? {} : { signal }),
  })
  return { turn, attempts }
}

describe("runTurn's iterator protocol", () => {
  test("it is its own async iterator", () => {
    const { turn } = turnOf([[finish()]])
    expect(turn[Symbol.asyncIterator]()).toBe(turn)
  })

  test("it inherits what an async generator inherits (Symbol.asyncDispose where the runtime has it)", () => {
    const { turn } = turnOf([[finish()]])
    const asyncIteratorPrototype = Object.getPrototypeOf(
      Object.getPrototypeOf(async function* () {}.prototype),
    )
    expect(Object.prototype.isPrototypeOf.call(asyncIteratorPrototype, turn)).toBe(true)
    expect(Object.prototype.toString.call(turn)).toBe("[object AsyncGenerator]")
  })

  test("next() calls made at once settle in order, as if made one after the other", async () => {
    const script = [text("one "), text("two "), text("three"), finish()]
    const { turn } = turnOf([script])
    const results = await Promise.all([turn.next(), turn.next(), turn.next(), turn.next(), turn.next()])
    expect(results).toEqual([
      { done: false, value: script[0] },
      { done: false, value: script[1] },
      { done: false, value: script[2] },
      { done: false, value: script[3] },
      { done: true, value: undefined },
    ])
  })

  test("return() before the first next() ends the turn without starting an attempt", async () => {
    const { turn, attempts } = turnOf([[text("never"), finish()]])
    expect(await turn.return(undefined)).toEqual({ done: true, value: undefined })
    expect(await turn.next()).toEqual({ done: true, value: undefined })
    expect(attempts).toHaveLength(0)
  })

  test("return() at a part stops the attempt: aborted, closed, not read on", async () => {
    const { turn, attempts } = turnOf([[text("one "), text("two "), finish()]])
    expect(await turn.next()).toEqual({ done: false, value: text("one ") })
    expect(await turn.return(undefined)).toEqual({ done: true, value: undefined })
    expect(attempts[0]!.signal.aborted).toBe(true)
    expect(attempts[0]!.closed).toBe(true)
    expect(attempts[0]!.produced).toBe(1)
    expect(await turn.next()).toEqual({ done: true, value: undefined })
  })

  test("return() made while a part is awaited waits for it, then stops the attempt", async () => {
    const { turn, attempts } = turnOf([[text("one "), text("two "), finish()]])
    const first = turn.next()
    const left = turn.return(undefined)
    expect(await first).toEqual({ done: false, value: text("one ") })
    expect(await left).toEqual({ done: true, value: undefined })
    expect(attempts[0]!.signal.aborted).toBe(true)
    expect(attempts[0]!.produced).toBe(1)
  })

  test("return() at the retry's attempt-start ends the turn before the retry starts", async () => {
    const { turn, attempts } = turnOf([[text(HERMES), finish()], [finish()]])
    expect(await turn.next()).toMatchObject({ done: false, value: { type: "attempt-start", round: 1 } })
    expect(await turn.return(undefined)).toEqual({ done: true, value: undefined })
    expect(attempts).toHaveLength(1)
  })

  test("throw() at a part ends the turn with that error and aborts the attempt", async () => {
    const { turn, attempts } = turnOf([[text("one "), text("two "), finish()]])
    await turn.next()
    const error = new Error("the consumer failed")
    await expect(turn.throw(error)).rejects.toBe(error)
    expect(attempts[0]!.signal.aborted).toBe(true)
    expect(await turn.next()).toEqual({ done: true, value: undefined })
  })

  test("throw() before the first next() rejects and starts nothing", async () => {
    const { turn, attempts } = turnOf([[text("never"), finish()]])
    const error = new Error("never started")
    await expect(turn.throw(error)).rejects.toBe(error)
    expect(await turn.next()).toEqual({ done: true, value: undefined })
    expect(attempts).toHaveLength(0)
  })

  test("a turn that ended in an error answers done afterwards", async () => {
    const failure = new Error("provider down")
    const { turn } = turnOf([[text("one "), { type: "throw", error: failure }]])
    expect(await turn.next()).toEqual({ done: false, value: text("one ") })
    await expect(turn.next()).rejects.toBe(failure)
    expect(await turn.next()).toEqual({ done: true, value: undefined })
    expect(await turn.return(undefined)).toEqual({ done: true, value: undefined })
  })

  test("a next() made from an event hook during a call waits for that call", async () => {
    let turn: AsyncGenerator<unknown> | undefined
    let reentered: Promise<unknown> | undefined
    const attempts: AttemptRecord[] = []
    turn = recoverToolCalls<string>({
      tools: ["read_file"],
      // The held "<" is released by the attempt's end: the decision runs in the call after it.
      attempt: scripted(
        [
          [text(HERMES), text("x <")],
          [text("ok"), finish()],
        ],
        attempts,
      ),
      options: {
        onEvent: (event) => {
          if (event.type === "markup-detected") reentered ??= turn!.next()
        },
      },
    })
    expect(await turn.next()).toEqual({ done: false, value: text("x ") })
    expect(await turn.next()).toEqual({ done: false, value: text("<") })
    expect(reentered).toBeUndefined()
    const decided = turn.next()
    expect(reentered).toBeDefined()
    expect(await decided).toMatchObject({ done: false, value: { type: "attempt-start", round: 1 } })
    expect(await reentered).toEqual({ done: false, value: text("ok") })
    expect(await turn.next()).toEqual({ done: false, value: finish() })
    expect(await turn.next()).toEqual({ done: true, value: undefined })
  })

  test("a next() made from an event hook while the turn decides waits its turn", async () => {
    let turn: AsyncGenerator<unknown> | undefined
    let reentered: Promise<unknown> | undefined
    const parts: NormalizedPart<string>[][] = [[text(HERMES), finish("f0")], [finish("f1")]]
    const attempts: AttemptRecord[] = []
    turn = recoverToolCalls<string>({
      tools: ["read_file"],
      attempt: scripted(parts, attempts),
      options: {
        onEvent: (event) => {
          if (event.type === "recovery-started") reentered = turn!.next()
        },
      },
    })
    expect(await turn.next()).toMatchObject({ done: false, value: { type: "attempt-start", round: 1 } })
    expect(await reentered).toEqual({ done: false, value: finish("f1") })
    expect(await turn.next()).toEqual({ done: true, value: undefined })
    expect(attempts).toHaveLength(2)
  })
})
