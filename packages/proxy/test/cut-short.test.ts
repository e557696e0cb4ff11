/**
 * A stream the upstream closes cleanly before its protocol's finish (no `finish_reason` / no
 * `response.completed` / no `message_stop`) was cut short: a leak in it stays off the screen and
 * is reported, but it is judged like a provider error — no retry is sent upstream.
 */
import { afterEach, describe, expect, it } from "vitest"
import { type Harness, QWEN_LEAK, startHarness } from "./support/harness.ts"
import { protocolClients } from "./support/protocol-clients.ts"

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

describe.each(protocolClients)("$name: a stream cut short without its finish", (client) => {
  it("keeps the leak off the screen, reports it, and sends no retry", async () => {
    const prose = "Reading it now.\n"
    const deltas = [prose, ...QWEN_LEAK.match(/[\s\S]{1,6}/g)!]
    harness = await startHarness([
      // Every delta, then the end (at the empty delta after them): no finish event.
      { content: [...deltas, ""], interrupt: { kind: "end", afterChunks: deltas.length } },
      { content: "the retry" },
    ])
    const shown = await client.stream(harness).catch(() => "")
    expect(shown).toBe(prose)
    expect(harness.turns()).toBe(1)
    expect(harness.events.some((event) => event.type === "markup-detected")).toBe(true)
    expect(harness.events.some((event) => event.type === "recovery-started")).toBe(false)
  })
})
