import { fc, it as prop } from "@fast-check/vitest"
import type { ReplayStep } from "@tool-rescue/testing"
import { afterEach, describe, expect, it, vi } from "vitest"
import { createProxy } from "../src/index.ts"
import { startProxyServer } from "../src/node.ts"
import {
  captureLogger,
  type Harness,
  type HarnessOptions,
  type ProxyEntry,
  QWEN_LEAK,
  startHarness as start,
  startHarness,
} from "./support/harness.ts"
import { failureOf, protocolClients } from "./support/protocol-clients.ts"

let harness: Harness | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await harness?.close()
  harness = undefined
})

const leak: ReplayStep = { content: `Reading it.\n${QWEN_LEAK}`, chunkSize: 6 }
const answer: ReplayStep = { content: "Done.", chunkSize: 2 }

/** Resolves once `condition` holds (a socket's close is seen a moment after it happens). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2))
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function metric(h: Harness, line: string): Promise<string | undefined> {
  const text = await (await fetch(`${h.proxy.url.replace(/\/v1$/, "")}/metrics`)).text()
  return text.split("\n").find((l) => l.startsWith(line))
}

/**
 * Each fault through both entries: the Node entry (undici's own timeouts, streams written to the
 * connection) and the portable web handler (`fetch`, the proxy's own timers, web streams).
 */
const entries: readonly ProxyEntry[] = ["node", "web"]
const faultCases = entries.flatMap((entry) => protocolClients.map((client) => ({ entry, client })))

describe.each(faultCases)("$client.name through the $entry entry: upstream faults", ({ entry, client }) => {
  const startHarness = (script: Parameters<typeof start>[0], options: HarnessOptions = {}) =>
    start(script, { ...options, entry })

  for (const status of [500, 429]) {
    it(`HTTP ${status} on the first attempt reaches the client unchanged, streaming and not, and is not retried`, async () => {
      const refused: ReplayStep = {
        httpError: { status, message: `upstream says ${status}`, code: "upstream_code" },
      }
      harness = await startHarness([refused, refused])
      expect(await failureOf(client.create(harness))).toEqual({ status, code: "upstream_code", api: true })
      expect(await failureOf(client.stream(harness))).toEqual({ status, code: "upstream_code", api: true })
      expect(harness.turns()).toBe(2)
      expect(harness.failed).toHaveLength(0)
    })

    it(`HTTP ${status} on the retry ends the turn with the upstream's error (streaming: an error event)`, async () => {
      const refused: ReplayStep = { httpError: { status, message: "retry refused", code: "retry_code" } }
      harness = await startHarness([{ content: QWEN_LEAK }, refused])
      expect(await failureOf(client.create(harness))).toEqual({ status, code: "retry_code", api: true })
      expect(harness.turns()).toBe(2)
      // A proxy of its own: the same turn resent to this one keeps its retry spent (ended-turns.test.ts).
      await harness.close()
      harness = await startHarness([leak, refused])
      const shown: string[] = []
      const streamed = await failureOf(client.stream(harness, (text) => shown.push(text)))
      expect(streamed).toEqual({ status: undefined, code: "retry_code", api: true })
      expect(shown.at(-1)).toBe("Reading it.\n")
      expect(harness.turns()).toBe(2)
    })
  }

  it("a mid-stream error event of the first attempt is passed on and not retried, even after a leak", async () => {
    harness = await startHarness([
      { ...leak, interrupt: { kind: "error", afterChunks: 8, error: { code: "boom" } } },
    ])
    expect(await failureOf(client.stream(harness))).toMatchObject({ code: "boom", api: true })
    expect(harness.turns()).toBe(1)
  })

  it("a cut upstream stream cuts the client's stream (first attempt and retry), is not retried, and is counted", async () => {
    const cut: ReplayStep = { ...leak, interrupt: { kind: "drop", afterChunks: 3 } }
    harness = await startHarness([cut, { content: QWEN_LEAK }, cut])
    let shown = ""
    expect(await failureOf(client.stream(harness, (text) => (shown = text)))).toMatchObject({ api: false })
    // The Node entry writes the frames before the cut; `@hono/node-server` serving the web
    // handler holds a body's first chunks back (to compute a content-length) and drops them on
    // the error: a limit of that server, not of the handler.
    if (entry === "node") expect(shown).toBe("Reading it.\n")
    expect(harness.turns()).toBe(1)
    expect(await failureOf(client.stream(harness))).toMatchObject({ api: false })
    expect(harness.turns()).toBe(3)
    expect(await metric(harness, 'tool_rescue_proxy_upstream_failures_total{kind="cut"}')).toMatch(/ 2$/)
  })

  it("an upstream that hangs before its headers is a 504 upstream-timeout, streaming and not", async () => {
    const late: ReplayStep = { content: "late", latencyMs: 20_000 }
    harness = await startHarness([late, late], { upstreamTimeoutMs: 100 })
    const gateway = { status: 504, code: "upstream-timeout", api: true }
    expect(await failureOf(client.create(harness))).toEqual(gateway)
    expect(await failureOf(client.stream(harness))).toEqual(gateway)
    // The proxy gave up on both requests: the upstream sees them closed.
    await waitFor(() => harness!.upstream.requests.every((request) => request.closedByClient))
  })

  it("a stream that stalls after its headers ends with the protocol's upstream-timeout event; the upstream request is aborted", async () => {
    const stalled: ReplayStep = { ...leak, interrupt: { kind: "stall", afterChunks: 4 } }
    harness = await startHarness([stalled, { content: QWEN_LEAK }, stalled], { upstreamIdleTimeoutMs: 100 })
    let shown = ""
    const failure = await failureOf(client.stream(harness, (text) => (shown = text)))
    expect(failure).toEqual({ status: undefined, code: "upstream-timeout", api: true })
    expect(shown).toBe("Reading it.\n")
    expect(harness.turns()).toBe(1)
    // The retry stalls: the same event, and no third request.
    expect(await failureOf(client.stream(harness))).toEqual(failure)
    expect(harness.turns()).toBe(3)
    await waitFor(() => harness!.upstream.requests.at(-1)!.closedByClient)
    expect(harness.upstream.requests.map((request) => request.closedByClient)).toEqual([true, false, true])
    expect(await metric(harness, 'tool_rescue_proxy_upstream_failures_total{kind="timeout"}')).toMatch(/ 2$/)
  })

  it("a JSON body that stalls after its headers is a 504 upstream-timeout (first attempt and retry)", async () => {
    const stalled: ReplayStep = { content: "never whole", interrupt: { kind: "stall", afterChunks: 0 } }
    harness = await startHarness([stalled, { content: QWEN_LEAK }, stalled], { upstreamIdleTimeoutMs: 100 })
    const gateway = { status: 504, code: "upstream-timeout", api: true }
    expect(await failureOf(client.create(harness))).toEqual(gateway)
    expect(await failureOf(client.create(harness))).toEqual(gateway)
    expect(harness.turns()).toBe(3)
  })

  it("an upstream that keeps sending slowly is not idle: each wait is bounded, not the whole stream", async () => {
    // 18 chunks 40 ms apart: the stream lasts about twice the bound, each wait a tenth of it (a
    // margin a loaded machine's scheduling does not eat).
    harness = await startHarness([{ content: "one two three four", chunkSize: 1, chunkDelayMs: 40 }], {
      upstreamIdleTimeoutMs: 400,
    })
    expect(await client.stream(harness)).toBe("one two three four")
  })
})

describe("a client that disconnects", () => {
  /**
   * Leaves at a random moment after its request reached the upstream (before the headers,
   * mid-stream, or while the upstream is silent): the upstream request it was waiting for is
   * aborted, and no request follows. `steps` stall at their end, so the upstream request is
   * still open whenever the client leaves. Streaming or not: a JSON body stalls half-way.
   */
  async function leaveAt(
    name: string,
    stream: boolean,
    steps: readonly ReplayStep[],
    delayMs: number,
  ): Promise<void> {
    const client = protocolClients.find((c) => c.name === name)!
    let arrived: () => void = () => undefined
    const reached = new Promise<void>((resolve) => {
      arrived = resolve
    })
    harness = await startHarness((_, turn) => {
      if (turn === steps.length - 1) arrived()
      return steps[turn]
    })
    try {
      const controller = new AbortController()
      const response = fetch(`${harness.proxy.url}${client.path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...client.body, stream }),
        signal: controller.signal,
      })
      // Read what arrives, as a client shows it, until it leaves.
      void response
        .then(async (r) => {
          for await (const _ of r.body!) {
            // shown
          }
        })
        .catch(() => undefined)
      await reached
      await sleep(delayMs)
      controller.abort()
      const last = harness.upstream.requests.at(-1)!
      await waitFor(() => last.closedByClient)
      // Time for a retry to arrive, were the proxy to send one.
      await sleep(50)
      expect(harness.turns()).toBe(steps.length)
    } finally {
      await harness.close()
      harness = undefined
    }
  }

  const slowLeak: ReplayStep = {
    content: `Reading it.\n${QWEN_LEAK}`,
    chunkSize: 6,
    chunkDelayMs: 2,
    latencyMs: 10,
    interrupt: { kind: "stall", afterChunks: 14 },
  }
  const names = protocolClients.map((c) => c.name)

  prop.prop([fc.constantFrom(...names), fc.boolean(), fc.integer({ min: 0, max: 50 })], { numRuns: 12 })(
    "during the first attempt: the upstream request is aborted, and no retry starts",
    (name, stream, delayMs) => leaveAt(name, stream, [slowLeak], delayMs),
    60_000,
  )

  prop.prop([fc.constantFrom(...names), fc.boolean(), fc.integer({ min: 0, max: 30 })], { numRuns: 12 })(
    "during the retry: the retry is aborted, and nothing follows it",
    (name, stream, delayMs) =>
      leaveAt(
        name,
        stream,
        [
          { content: QWEN_LEAK },
          { ...answer, latencyMs: 5, chunkDelayMs: 2, interrupt: { kind: "stall", afterChunks: 2 } },
        ],
        delayMs,
      ),
    60_000,
  )
})

describe("what the server logs", () => {
  it("nothing for a cut or stalled recovered stream (expected events)", async () => {
    const logged = [
      vi.spyOn(console, "error").mockImplementation(() => undefined),
      vi.spyOn(console, "warn").mockImplementation(() => undefined),
      vi.spyOn(console, "info").mockImplementation(() => undefined),
      vi.spyOn(console, "log").mockImplementation(() => undefined),
    ]
    harness = await startHarness(
      [
        { ...leak, interrupt: { kind: "drop", afterChunks: 3 } },
        { ...leak, interrupt: { kind: "stall", afterChunks: 3 } },
      ],
      { upstreamIdleTimeoutMs: 100 },
    )
    const client = protocolClients[0]!
    await failureOf(client.stream(harness))
    await failureOf(client.stream(harness))
    await sleep(20)
    expect(logged.flatMap((spy) => spy.mock.calls)).toEqual([])
  })

  it("a passed-through stream that is cut or stalls cuts the client's stream, with nothing logged", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined)
    const info = vi.spyOn(console, "info").mockImplementation(() => undefined)
    harness = await startHarness(
      [
        { content: "abcdef", chunkSize: 1, interrupt: { kind: "drop", afterChunks: 3 } },
        { content: "abcdef", chunkSize: 1, interrupt: { kind: "stall", afterChunks: 3 } },
      ],
      { upstreamIdleTimeoutMs: 100 },
    )
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${harness.proxy.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
      })
      const read = (async () => {
        for await (const _ of response.body!) {
          // the upstream's bytes, untouched
        }
      })()
      await expect(read).rejects.toThrow()
    }
    expect(harness.upstream.requests[1]!.rawBody).not.toContain("tools")
    await sleep(20)
    expect([...error.mock.calls, ...info.mock.calls]).toEqual([])
  })

  it("an unexpected failure still surfaces: an upstream event that is not JSON is logged", async () => {
    const { logger, lines } = captureLogger()
    const sse = (text: string) => new Response(text, { headers: { "content-type": "text/event-stream" } })
    harness = await startHarness([], {
      fetch: async () => sse('data: {"id":"c","choices":[]}\n\ndata: {not json\n\n'),
      logger,
    })
    expect(await failureOf(protocolClients[0]!.stream(harness))).toMatchObject({ api: false })
    await waitFor(() => lines.length > 0)
    // Through the proxy's logger, one line naming the failure's kind.
    expect(lines).toEqual([expect.objectContaining({ outcome: "upstream-error", kind: "malformed" })])
  })
})

it("an unreachable upstream is a 502", async () => {
  const closed = await startHarness([])
  const url = closed.upstream.url
  await closed.close()
  const proxy = await startProxyServer({ upstream: url, port: 0 })
  try {
    const response = await fetch(`${proxy.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify(protocolClients[0]!.body),
    })
    expect(response.status).toBe(502)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("upstream-unreachable")
  } finally {
    await proxy.close()
  }
})

it("a timeout that is not a positive number is refused at once", () => {
  for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
    for (const option of ["upstreamTimeoutMs", "upstreamIdleTimeoutMs"])
      expect(() => createProxy({ upstream: "http://127.0.0.1:1/v1", [option]: bad })).toThrow(
        `${option} must be a positive number`,
      )
})
