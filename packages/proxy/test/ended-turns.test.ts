/**
 * The proxy's memory of ended turns: recovery's turn memory (its bounds, its sum of a resend's
 * retries and its shape index are tested there, `recovery/test/turn-memory.test.ts`) with the
 * proxy's defaults, a turn's shape and its SHA-256 key; and, in the proxy, a resend is answered
 * from it only for the same client and the same conversation.
 */

import type { ReplayStep } from "@tool-rescue/testing"
import fc from "fast-check"
import OpenAI from "openai"
import { describe, expect, it, vi } from "vitest"
import { createEndedTurns, turnKey, turnShape } from "../src/ended-turns.ts"
import { protocols } from "../src/protocols.ts"
import { harnessPerTest, QWEN_LEAK, READ_FILE_TOOL } from "./support/harness.ts"

describe("ended turns", () => {
  it("holds 1024 turns unless told otherwise, each with its shape", () => {
    const turns = createEndedTurns()
    for (let i = 0; i <= 1024; i++) turns.remember(`${i}`, { spent: 1 }, `chat|a${i}`)
    expect(turns.recall("0")).toBeUndefined()
    expect(turns.mayHold("chat|a0")).toBe(false)
    expect(turns.recall("1")).toEqual({ spent: 1 })
    expect(turns.mayHold("chat|a1")).toBe(true)
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

  it("a turn's key: the same for a resend streamed or not, another for another client or another conversation", async () => {
    const body = { model: "m", messages: [{ role: "user", content: "hi" }], tools: [READ_FILE_TOOL] }
    const key = await turnKey(protocols.chat, { ...body, stream: true }, "Bearer a")
    expect(await turnKey(protocols.chat, { ...body, stream: false, max_tokens: 5 }, "Bearer a")).toBe(key)
    expect(await turnKey(protocols.chat, body, "Bearer b")).not.toBe(key)
    // Written with sorted keys (recovery's sortedKeys): a client that rebuilds its objects resends the same turn.
    const rebuilt = { tools: body.tools, messages: [{ content: "hi", role: "user" }], model: "m" }
    expect(await turnKey(protocols.chat, rebuilt, "Bearer a")).toBe(key)
    expect(
      await turnKey(protocols.chat, { ...body, messages: [{ role: "user", content: "ho" }] }, "Bearer a"),
    ).not.toBe(key)
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
