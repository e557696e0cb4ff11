/**
 * A recovered stream's clean path: a network chunk of the upstream that holds whole events, all
 * passed on untouched, is written to the client as it came (its `id:` lines and comments too);
 * any other chunk — one that splits an event, or whose events the turn holds back — is written
 * event by event. Either way the client reads the upstream's text, each character once, in order.
 */
import { setTimeout as sleep } from "node:timers/promises"
import { fc, it as prop } from "@fast-check/vitest"
import { createParser } from "eventsource-parser"
import { afterEach, describe, expect, it } from "vitest"
import { streamedChat } from "./support/harness.ts"
import { type PlainUpstream, startPlainUpstream } from "./support/plain-upstream.ts"

let upstream: PlainUpstream | undefined
afterEach(async () => {
  await upstream?.close()
  upstream = undefined
})

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish }],
  })

interface ChatChunk {
  readonly choices: readonly { readonly delta: { readonly content?: string } }[]
}

const ROLE = chunk({ role: "assistant", content: "" })
const FINISH = chunk({}, "stop")

/**
 * Starts an upstream that writes `writes` one by one, each its own network chunk: the next one
 * once `before(k)` resolved (the client read what the test waits for: two writes a loaded machine
 * would join stay apart), else `gapMs` after the one before.
 */
async function upstreamWriting(
  writes: readonly string[],
  gapMs: number,
  before?: (k: number) => Promise<void>,
): Promise<PlainUpstream> {
  return startPlainUpstream((_, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" })
    void (async () => {
      for (const [k, text] of writes.entries()) {
        if (k > 0) await (before?.(k) ?? sleep(gapMs))
        response.write(text)
      }
      response.end()
    })()
  })
}

/** What the client has read so far, and a wait for it to have read a given length. */
class ClientText {
  text = ""
  private readonly waiters: { readonly length: number; readonly resolve: () => void }[] = []

  add(chunk: string): void {
    this.text += chunk
    for (const waiter of this.waiters.filter(({ length }) => this.text.length >= length)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }

  reached(length: number): Promise<void> {
    if (this.text.length >= length) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ length, resolve }))
  }
}

async function streamThrough(proxy: PlainUpstream["proxy"], client = new ClientText()): Promise<string> {
  const response = await fetch(`${proxy.url}/chat/completions`, streamedChat())
  expect(response.status).toBe(200)
  const decoder = new TextDecoder()
  for await (const chunk of response.body!) client.add(decoder.decode(chunk, { stream: true }))
  return client.text
}

/** The data of every event of an SSE body, in order (eventsource-parser, as clients read it). */
function eventData(body: string): string[] {
  const data: string[] = []
  const parser = createParser({ onEvent: (event) => data.push(event.data) })
  parser.feed(body)
  return data
}

describe("a recovered stream's clean chunks", () => {
  it("are written as they came: `id:` lines, comments and spacing kept", async () => {
    // One network chunk of whole events, none of them held back (plain prose, no marker prefix).
    const clean = `: warming up\nid: 1\ndata: ${ROLE}\n\nid: 2\ndata:${chunk({ content: "Hello" })}\n\n`
    const client = new ClientText()
    upstream = await upstreamWriting([clean, `data: ${FINISH}\n\n`, "data: [DONE]\n\n"], 0, (k) =>
      k === 1 ? client.reached(clean.length) : Promise.resolve(),
    )
    const body = await streamThrough(upstream.proxy, client)
    expect(body.startsWith(clean)).toBe(true)
    // The finish is held until the stream ends: written as its event, the sentinel once.
    expect(body.slice(clean.length)).toBe(`data: ${FINISH}\n\ndata: [DONE]\n\n`)
  })

  it("are written event by event when a chunk splits an event", async () => {
    const hello = `data: ${chunk({ content: "Hello" })}\n\n`
    const world = `data: ${chunk({ content: " world" })}\n\n`
    const cut = 20
    const client = new ClientText()
    upstream = await upstreamWriting(
      [`id: 7\ndata: ${ROLE}\n\n${hello.slice(0, cut)}`, hello.slice(cut) + world, `data: ${FINISH}\n\n`],
      0,
      // The role's event is written once the first chunk is in (its half event stays behind).
      (k) => (k === 1 ? client.reached(`data: ${ROLE}\n\n`.length) : Promise.resolve()),
    )
    const body = await streamThrough(upstream.proxy, client)
    // Nothing was written as it came: each event framed again (no `id:` line), each once.
    expect(body).toBe(`data: ${ROLE}\n\n${hello}${world}data: ${FINISH}\n\n`)
  })

  it("keep an event written over several `data:` lines one event when it is framed again", async () => {
    const hello = chunk({ content: "Hello" })
    const cut = hello.indexOf('"choices"')
    // The sentinel in the same chunk: the chunk is framed again, event by event.
    const spread = `data: ${hello.slice(0, cut)}\ndata: ${hello.slice(cut)}\n\n`
    upstream = await upstreamWriting([`data: ${ROLE}\n\n${spread}data: ${FINISH}\n\ndata: [DONE]\n\n`], 0)
    const data = eventData(await streamThrough(upstream.proxy))
    expect(data.map((event) => (event === "[DONE]" ? event : JSON.parse(event)))).toEqual([
      JSON.parse(ROLE),
      JSON.parse(hello),
      JSON.parse(FINISH),
      "[DONE]",
    ])
  })

  prop.prop(
    [
      fc.array(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 5 }),
      fc.boolean(),
    ],
    { numRuns: Number(process.env.FC_NUM_RUNS ?? 25) },
  )(
    "give the upstream's text, each character once and in order, however the network splits it",
    async (deltas, cuts, crlf) => {
      const prose = deltas.map((text) => text.replace(/[<[{|`~\\\n]/g, "x"))
      const events = [ROLE, ...prose.map((content) => chunk({ content })), FINISH]
      const newline = crlf ? "\r\n" : "\n"
      const wire = `${events.map((data, k) => `id: ${k}${newline}data: ${data}${newline}${newline}`).join("")}data: [DONE]${newline}${newline}`
      const points = [...new Set(cuts.map((cut) => cut % wire.length))].sort((a, b) => a - b)
      const writes = [0, ...points]
        .map((start, k) => wire.slice(start, [...points, wire.length][k]))
        .filter((part) => part.length > 0)
      const started = await upstreamWriting(writes, 5)
      try {
        const data = eventData(await streamThrough(started.proxy))
        // The turn may split a delta whose end it held a moment: the text is what counts.
        expect(data[0]).toBe(ROLE)
        expect(data.slice(-2)).toEqual([FINISH, "[DONE]"])
        const text = data
          .slice(1, -2)
          .map((event) => (JSON.parse(event) as ChatChunk).choices[0]!.delta.content)
          .join("")
        expect(text).toBe(prose.join(""))
      } finally {
        await started.close()
      }
    },
    60_000,
  )
})
