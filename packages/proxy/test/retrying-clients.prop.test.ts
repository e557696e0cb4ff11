/**
 * The bound holds whatever the client's retry policy: a model that leaks every time costs at most
 * `maxRecoveries + 1` = 2 upstream requests per user turn, however the client resends the turn
 * the proxy failed — on an error, on a stream that ended without its success event (as Codex
 * CLI takes an `error` event), N times, streamed or not (as Claude Code falls back to a
 * non-streamed request when its router drops an error chunk). With `maxRecoveries` 2 and retries
 * that fail upstream, the resends share the turn's two retries. Over real HTTP, raw `fetch`,
 * against the replay server.
 */
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Harness, QWEN_LEAK, startHarness } from "./support/harness.ts"
import { protocolClients } from "./support/protocol-clients.ts"

/** When the client resends: on an error it sees, on any end but its success event, or always. */
type ResendWhen = "error" | "close" | "always"

interface Policy {
  readonly when: ResendWhen
  /** Whether each resend streams (the first request always does). */
  readonly resends: readonly boolean[]
}

const aPolicy: fc.Arbitrary<Policy> = fc.record({
  when: fc.constantFrom<ResendWhen>("error", "close", "always"),
  resends: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
})

/** What a client saw of one answer. */
interface Seen {
  readonly error: boolean
  /** The success end of the protocol arrived (`[DONE]` after a finish, `response.completed`, `message_stop`). */
  readonly completed: boolean
}

/** One request, read to its end as a client would. */
async function send(harness: Harness, path: string, body: object, stream: boolean): Promise<Seen> {
  const response = await fetch(`${harness.proxy.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
    body: JSON.stringify({ ...body, stream }),
  })
  const text = await response.text()
  if (!response.ok) return { error: true, completed: false }
  if (!stream) return { error: text.includes('"error"'), completed: !text.includes('"error"') }
  const error =
    /event: error|event: response\.failed|^data: \{"error"/m.test(text) || text.includes('"type":"error"')
  const completed =
    text.includes("event: response.completed") ||
    text.includes("event: message_stop") ||
    (text.includes("data: [DONE]") && !error)
  return { error, completed }
}

/**
 * A user turn of `prompt` sent streamed as `client` sends it, then resent (streamed or not) as
 * `policy` says; `resent` sees what each resend got.
 */
async function clientTurn(
  harness: Harness,
  client: (typeof protocolClients)[number],
  prompt: string,
  policy: Policy,
  resent: (seen: Seen) => void = () => undefined,
): Promise<void> {
  const body = withPrompt(client.name, client.body, prompt)
  let seen = await send(harness, client.path, body, true)
  for (const stream of policy.resends) {
    if (!resends(policy.when, seen)) break
    seen = await send(harness, client.path, body, stream)
    resent(seen)
  }
}

function resends(when: ResendWhen, seen: Seen): boolean {
  if (when === "always") return true
  if (when === "error") return seen.error
  return !seen.completed
}

describe("any client retry policy: upstream requests per turn ≤ 2", () => {
  let harness: Harness
  beforeAll(async () => {
    // A model that leaks every time: every turn ends with repeated-markup.
    harness = await startHarness(() => ({ content: `I will run it.${QWEN_LEAK}`, chunkSize: 7 }))
  })
  afterAll(() => harness.close())

  let turn = 0
  for (const client of protocolClients) {
    it(`${client.name}: resend on error, on close, always; N times; streamed or not`, async () => {
      await fc.assert(
        fc.asyncProperty(aPolicy, async ({ when, resends: streams }) => {
          // A user turn of its own: a prompt no other run sends.
          const prompt = `Show me a.ts (turn ${turn++})`
          await clientTurn(harness, client, prompt, { when, resends: streams }, (seen) => {
            // The resend of a failed turn is failed again, never a fresh turn.
            expect(seen.error).toBe(true)
          })
          const upstream = harness.upstream.requests.filter((r) => r.rawBody.includes(prompt)).length
          expect(upstream).toBeLessThanOrEqual(2)
        }),
        { numRuns: 15 },
      )
    })
  }
})

describe("maxRecoveries 2, every retry failing upstream: retries per turn ≤ 2, however the client resends", () => {
  let harness: Harness
  beforeAll(async () => {
    // The model leaks every time; the upstream fails every retry (a provider error is final:
    // the client may resend, and each resend's own request goes upstream, but never a retry
    // beyond the turn's budget, which resends share).
    harness = await startHarness(
      (request) =>
        isRetryRequest(request.body)
          ? { httpError: { status: 500, message: "boom" } }
          : { content: `I will run it.${QWEN_LEAK}`, chunkSize: 7 },
      { maxRecoveries: 2 },
    )
  })
  afterAll(() => harness.close())

  let turn = 0
  for (const client of protocolClients) {
    it(`${client.name}: resend on error, on close, always; N times; streamed or not`, async () => {
      await fc.assert(
        fc.asyncProperty(aPolicy, async ({ when, resends: streams }) => {
          const prompt = `Show me b.ts (turn ${turn++})`
          await clientTurn(harness, client, prompt, { when, resends: streams })
          const retries = harness.upstream.requests.filter(
            (r) => r.rawBody.includes(prompt) && isRetryRequest(r.body),
          ).length
          expect(retries).toBeLessThanOrEqual(2)
        }),
        { numRuns: 10 },
      )
    })
  }
})

/** `body` (one of the protocol clients' requests) asking `prompt`. */
function withPrompt(protocol: string, body: Readonly<Record<string, unknown>>, prompt: string): object {
  if (protocol === "responses") return { ...body, input: prompt }
  return { ...body, messages: [{ role: "user", content: prompt }] }
}
