/**
 * The memory of ended turns: bounded in entries (the oldest forgotten first) and in time (a
 * remembered turn is forgotten once its time is up: the clock is the test's, no timers); and, in
 * the proxy, a resend is answered from it only for the same client and the same conversation.
 */

import type { ReplayStep } from "@tool-rescue/testing"
import fc from "fast-check"
import OpenAI from "openai"
import { describe, expect, it, vi } from "vitest"
import { EndedTurns, turnKey, turnShape } from "../src/ended-turns.ts"
import { protocols } from "../src/protocols.ts"
import { harnessPerTest, QWEN_LEAK, READ_FILE_TOOL } from "./support/harness.ts"

const ended = { recoveries: 1 }

describe("EndedTurns", () => {
  it("forgets a turn once its time is up", () => {
    let now = 1000
    const turns = new EndedTurns({ ttlMs: 50, now: () => now })
    turns.set("a", ended, "x")
    now = 1049
    expect(turns.get("a")).toEqual(ended)
    now = 1050
    expect(turns.get("a")).toBeUndefined()
    expect(turns.empty).toBe(true)
  })

  it("is empty again once every turn's time is up, with no lookup of them (a failed turn does not slow every later request)", () => {
    let now = 1000
    const turns = new EndedTurns({ ttlMs: 50, now: () => now })
    turns.set("a", ended, "chat|a1")
    expect(turns.empty).toBe(false)
    expect(turns.mayHold("chat|a1")).toBe(true)
    now = 1050
    expect(turns.empty).toBe(true)
    expect(turns.mayHold("chat|a1")).toBe(false)
  })

  it("may hold a turn only of a shape it remembers, while one turn of that shape is remembered", () => {
    const turns = new EndedTurns({ maxEntries: 2 })
    turns.set("a", ended, "x")
    turns.set("b", ended, "x")
    expect(turns.mayHold("x")).toBe(true)
    expect(turns.mayHold("y")).toBe(false)
    turns.set("c", ended, "y")
    turns.set("d", ended, "y")
    expect(turns.mayHold("x")).toBe(false)
    expect(turns.mayHold("y")).toBe(true)
  })

  it("a turn's shape: the same for a resend streamed or not, another with one message more or another last message", () => {
    const body = { model: "m", messages: [{ role: "user", content: "hi" }], tools: [READ_FILE_TOOL] }
    const shape = turnShape(protocols.chat, { ...body, stream: true })
    expect(turnShape(protocols.chat, { ...body, stream: false, max_tokens: 5 })).toBe(shape)
    expect(turnShape(protocols.responses, { ...body, input: body.messages })).not.toBe(shape)
    const more = [...body.messages, { role: "assistant", content: "ho" }]
    expect(turnShape(protocols.chat, { ...body, messages: more })).not.toBe(shape)
    const other = [{ role: "user", content: "hello" }]
    expect(turnShape(protocols.chat, { ...body, messages: other })).not.toBe(shape)
  })

  it("a resend always has its turn's shape: the shape depends on the conversation fields only, as the key does (property)", () => {
    const names = Object.keys(protocols) as (keyof typeof protocols)[]
    // Fields a resend may change: anything but the protocol's conversation fields.
    const transport = (name: keyof typeof protocols) =>
      fc
        .dictionary(fc.string(), fc.jsonValue())
        .map((fields) =>
          Object.fromEntries(
            Object.entries(fields).filter(
              ([field]) => !protocols[name].wire.conversation.includes(field) && field !== "__proto__",
            ),
          ),
        )
    fc.assert(
      fc.property(
        fc
          .constantFrom(...names)
          .chain((name) =>
            fc.tuple(
              fc.constant(name),
              fc.record(
                Object.fromEntries(protocols[name].wire.conversation.map((field) => [field, fc.jsonValue()])),
                { requiredKeys: [] },
              ),
              transport(name),
              transport(name),
            ),
          ),
        ([name, conversation, first, resend]) => {
          const protocol = protocols[name]
          expect(turnShape(protocol, { ...resend, ...conversation })).toBe(
            turnShape(protocol, { ...first, ...conversation }),
          )
        },
      ),
    )
  })

  it("holds at most maxEntries turns, forgetting the oldest first (a turn set again is the newest)", () => {
    const turns = new EndedTurns({ maxEntries: 2 })
    turns.set("a", ended, "x")
    turns.set("b", ended, "x")
    turns.set("a", ended, "x")
    turns.set("c", ended, "x")
    expect(turns.size).toBe(2)
    expect(turns.get("b")).toBeUndefined()
    expect(turns.get("a")).toEqual({ recoveries: 2 })
    expect(turns.get("c")).toEqual(ended)
  })

  it("adds a resend's retries to those its turn spent while it is remembered, and starts again once forgotten", () => {
    let now = 1000
    const turns = new EndedTurns({ ttlMs: 50, now: () => now })
    turns.set("a", { recoveries: 1 }, "x")
    turns.set("a", { recoveries: 1 }, "x")
    expect(turns.get("a")).toEqual({ recoveries: 2 })
    const error = {
      status: 422,
      error: { message: "again", type: "tool_call_recovery_error", code: "repeated-markup" },
    }
    turns.set("a", { recoveries: 0, error }, "x")
    expect(turns.get("a")).toEqual({ recoveries: 2, error })
    now = 1050
    turns.set("a", { recoveries: 1 }, "x")
    expect(turns.get("a")).toEqual({ recoveries: 1 })
  })

  it("a turn's key: the same for a resend streamed or not, another for another client or another conversation", async () => {
    const body = { model: "m", messages: [{ role: "user", content: "hi" }], tools: [READ_FILE_TOOL] }
    const key = await turnKey(protocols.chat, { ...body, stream: true }, "Bearer a")
    expect(await turnKey(protocols.chat, { ...body, stream: false, max_tokens: 5 }, "Bearer a")).toBe(key)
    expect(await turnKey(protocols.chat, body, "Bearer b")).not.toBe(key)
    expect(
      await turnKey(protocols.chat, { ...body, messages: [{ role: "user", content: "ho" }] }, "Bearer a"),
    ).not.toBe(key)
  })

  it("a turn's key does not depend on the order of the keys in its objects (property)", async () => {
    /** `value` with every object's keys in reverse order. */
    const reversed = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reversed)
      if (typeof value !== "object" || value === null) return value
      return Object.fromEntries(
        Object.entries(value)
          .reverse()
          .map(([key, item]) => [key, reversed(item)]),
      )
    }
    await fc.assert(
      fc.asyncProperty(fc.array(fc.dictionary(fc.string(), fc.jsonValue())), async (messages) => {
        const key = await turnKey(protocols.chat, { messages }, "Bearer a")
        expect(await turnKey(protocols.chat, { messages: reversed(messages) }, "Bearer a")).toBe(key)
      }),
    )
  })
})

const startHarness = harnessPerTest()
const request = {
  model: "m",
  messages: [{ role: "user" as const, content: "Show me a.ts" }],
  tools: [READ_FILE_TOOL],
}
const client = (h: { proxy: { url: string } }, apiKey = "sk-a") =>
  new OpenAI({ baseURL: h.proxy.url, apiKey, maxRetries: 0 })

describe("the proxy's memory of the turns it ended", () => {
  it("another client's identical turn is its own turn: it goes upstream", async () => {
    const harness = await startHarness(() => ({ content: QWEN_LEAK }))
    const failure = (key: string) =>
      client(harness, key)
        .chat.completions.create(request)
        .catch((error: unknown) => (error as InstanceType<typeof OpenAI.APIError>).code)
    expect(await failure("sk-a")).toBe("repeated-markup")
    expect(await failure("sk-a")).toBe("repeated-markup")
    expect(harness.turns()).toBe(2)
    expect(await failure("sk-b")).toBe("repeated-markup")
    expect(harness.turns()).toBe(4)
  })

  it("a resend of a turn whose retry failed upstream keeps its retry spent: one more request upstream, no retry", async () => {
    const harness = await startHarness([
      { content: QWEN_LEAK },
      { httpError: { status: 500, message: "boom" } },
      { content: QWEN_LEAK },
      { content: QWEN_LEAK },
    ])
    const first = await client(harness)
      .chat.completions.create(request)
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>)
    expect((first as InstanceType<typeof OpenAI.APIError>).status).toBe(500)
    const resent = await client(harness)
      .chat.completions.create(request)
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>)
    expect((resent as InstanceType<typeof OpenAI.APIError>).code).toBe("repeated-markup")
    // The leak of the resend ends the turn: its budget was spent on the retry that failed.
    expect(harness.turns()).toBe(3)
  })

  it("a resend that arrives while the turn's retry runs finds the retry spent: no second retry upstream", async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let requests = 0
    const harness = await startHarness(async () => {
      requests += 1
      // The first send's retry (the second request) waits until the resend has been answered.
      if (requests === 2) await held
      return { content: QWEN_LEAK }
    })
    const code = (error: unknown) => (error as InstanceType<typeof OpenAI.APIError>).code
    const first = client(harness).chat.completions.create(request).catch(code)
    await vi.waitFor(() => expect(harness.turns()).toBe(2), { timeout: 10_000 })
    // The resend's leak ends the turn at once: its budget went to the retry still running.
    expect(await client(harness).chat.completions.create(request).catch(code)).toBe("repeated-markup")
    expect(harness.turns()).toBe(3)
    release()
    expect(await first).toBe("repeated-markup")
    expect(harness.turns()).toBe(3)
  })

  it("a turn that ended with an answer is forgotten: asking the same again is a new turn with its own retry", async () => {
    const harness = await startHarness([
      { content: QWEN_LEAK },
      { content: "The file is empty." },
      { content: QWEN_LEAK },
      { content: "Still empty." },
    ])
    const answer = async () =>
      (await client(harness).chat.completions.create(request)).choices[0]?.message.content
    expect(await answer()).toContain("The file is empty.")
    expect(await answer()).toContain("Still empty.")
    expect(harness.turns()).toBe(4)
  })

  it("resends spend one budget: with maxRecoveries 2 and retries that fail upstream, the third send gets no retry", async () => {
    const script: ReplayStep[] = []
    for (let i = 0; i < 4; i++)
      script.push({ content: QWEN_LEAK }, { httpError: { status: 500, message: "boom" } })
    const harness = await startHarness(script, { maxRecoveries: 2 })
    const sent = []
    for (let i = 0; i < 4; i++)
      sent.push(
        await client(harness)
          .chat.completions.create(request)
          .catch((error: unknown) => (error as InstanceType<typeof OpenAI.APIError>).status),
      )
    // A leak and its retry (500), a resend's leak and its retry (500): two retries spent. The
    // third send's leak ends the turn (422) and the fourth gets that error from the memory.
    expect(sent).toEqual([500, 500, 422, 422])
    expect(harness.turns()).toBe(5)
  })
})
