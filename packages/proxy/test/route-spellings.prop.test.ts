import { fc, it } from "@fast-check/vitest"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { type Harness, QWEN_LEAK, startHarness } from "./support/harness.ts"
import { protocolClients } from "./support/protocol-clients.ts"

let harness: Harness
beforeAll(async () => {
  // Every first attempt leaks, every retry answers: requests alternate.
  harness = await startHarness((request) =>
    request.index % 2 === 0 ? { content: `Reading it.\n${QWEN_LEAK}` } : { content: "Recovered." },
  )
})
afterAll(() => harness.close())

/** A spelling of `path` (`/chat/completions`): each slash doubled or more, trailing slashes added. */
const spelling = (path: string) =>
  fc
    .tuple(
      fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 4, maxLength: 4 }),
      fc.integer({ min: 0, max: 2 }),
    )
    .map(([slashes, trailing]) => {
      const segments = ["v1", ...path.split("/").filter((s) => s !== "")]
      const spelled = segments
        .map((segment, i) => `${"/".repeat(slashes[i % slashes.length]!)}${segment}`)
        .join("")
      return `${spelled}${"/".repeat(trailing)}`
    })

describe("route spellings", () => {
  it.prop(
    [
      fc
        .constantFrom(...protocolClients)
        .chain((client) => fc.tuple(fc.constant(client), spelling(client.path))),
    ],
    { numRuns: Number(process.env.FC_NUM_RUNS ?? 30) },
  )(
    "any spelling of a recovered route (doubled or trailing slashes) is recovered",
    async ([client, path]) => {
      const before = harness.turns()
      const origin = harness.proxy.url.replace(/\/v1$/, "")
      const response = await fetch(`${origin}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ ...client.body, stream: true }),
      })
      const text = await response.text()
      expect(response.status).toBe(200)
      expect(text).not.toContain("<tool_call>")
      expect(text).toContain("Recovered.")
      expect(harness.turns() - before).toBe(2)
    },
  )
})
