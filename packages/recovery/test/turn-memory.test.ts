/**
 * The turn memory's mechanics: bounded in entries (the oldest forgotten first) and in time (a
 * remembered turn is forgotten once its time is up: the clock is the test's, no timers); a re-run's
 * retries add to its turn's; a shape per turn says which turns may be held. What the adapters and
 * the proxy build on it is tested with them (`turn-memory.prop.test.ts`, the proxy's
 * `ended-turns.test.ts`).
 */
import { describe, expect, it } from "vitest"
import { createTurnMemory, sortedKeys, turnKey } from "../src/adapter.ts"

const ended = { spent: 1 }

describe("createTurnMemory", () => {
  it("forgets a turn once its time is up", () => {
    let now = 1000
    const memory = createTurnMemory({ ttlMs: 50, now: () => now })
    memory.remember("a", ended)
    now = 1049
    expect(memory.recall("a")).toEqual(ended)
    now = 1050
    expect(memory.recall("a")).toBeUndefined()
    expect(memory.empty).toBe(true)
  })

  it("is empty again once every turn's time is up, with no lookup of them (a failed turn does not slow every later call)", () => {
    let now = 1000
    const memory = createTurnMemory({ ttlMs: 50, now: () => now })
    memory.remember("a", ended, "chat|a1")
    expect(memory.empty).toBe(false)
    expect(memory.mayHold("chat|a1")).toBe(true)
    now = 1050
    expect(memory.empty).toBe(true)
    expect(memory.mayHold("chat|a1")).toBe(false)
  })

  it("holds at most maxEntries turns, forgetting the oldest first (a turn remembered again is the newest)", () => {
    const memory = createTurnMemory({ maxEntries: 2 })
    memory.remember("a", ended)
    memory.remember("b", ended)
    memory.remember("a", ended)
    memory.remember("c", ended)
    expect(memory.recall("b")).toBeUndefined()
    expect(memory.recall("a")).toEqual({ spent: 2 })
    expect(memory.recall("c")).toEqual(ended)
  })

  it("holds 256 turns unless told otherwise", () => {
    const memory = createTurnMemory()
    for (let i = 0; i <= 256; i++) memory.remember(`${i}`, ended)
    expect(memory.recall("0")).toBeUndefined()
    expect(memory.recall("1")).toEqual(ended)
  })

  it("adds a re-run's retries to those its turn spent while it is remembered, and starts again once forgotten", () => {
    let now = 1000
    const memory = createTurnMemory<{ readonly code: string }>({ ttlMs: 50, now: () => now })
    memory.remember("a", { spent: 1 })
    memory.remember("a", { spent: 1 })
    expect(memory.recall("a")).toEqual({ spent: 2 })
    const error = { code: "repeated-markup" }
    memory.remember("a", { spent: 0, error })
    expect(memory.recall("a")).toEqual({ spent: 2, error })
    now = 1050
    memory.remember("a", { spent: 1 })
    expect(memory.recall("a")).toEqual({ spent: 1 })
    memory.forget("a")
    memory.remember("a", { spent: 1 })
    expect(memory.recall("a")).toEqual({ spent: 1 })
  })

  it("may hold a turn only of a shape it remembers, while one turn of that shape is remembered", () => {
    const memory = createTurnMemory({ maxEntries: 2 })
    memory.remember("a", ended, "x")
    memory.remember("b", ended, "x")
    expect(memory.mayHold("x")).toBe(true)
    expect(memory.mayHold("y")).toBe(false)
    memory.remember("c", ended, "y")
    memory.remember("d", ended, "y")
    expect(memory.mayHold("x")).toBe(false)
    expect(memory.mayHold("y")).toBe(true)
    memory.forget("c")
    expect(memory.mayHold("y")).toBe(true)
    memory.forget("d")
    expect(memory.mayHold("y")).toBe(false)
  })

  it("a turn remembered again under another shape holds only the new one; one remembered with none, no shape", () => {
    const memory = createTurnMemory()
    memory.remember("a", ended, "x")
    memory.remember("a", ended, "y")
    expect(memory.mayHold("x")).toBe(false)
    expect(memory.mayHold("y")).toBe(true)
    memory.remember("a", ended)
    expect(memory.mayHold("y")).toBe(false)
    expect(memory.recall("a")).toEqual({ spent: 3 })
  })
})

describe("turnKey and sortedKeys", () => {
  it("keys a turn by its content, whatever the order of its objects' keys", () => {
    expect(turnKey({ a: 1, b: [{ c: 2, d: 3 }] })).toBe(turnKey({ b: [{ d: 3, c: 2 }], a: 1 }))
    expect(turnKey({ a: 1 })).not.toBe(turnKey({ a: 2 }))
    expect(turnKey({ a: 1n })).toBeUndefined()
  })

  it("writes each object's keys sorted, arrays in their order", () => {
    expect(JSON.stringify({ b: 1, a: [{ d: 2, c: 3 }, 1] }, sortedKeys)).toBe('{"a":[{"c":3,"d":2},1],"b":1}')
  })
})
