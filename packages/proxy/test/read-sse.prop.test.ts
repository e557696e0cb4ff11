import { fc, it } from "@fast-check/vitest"
import { createParser } from "eventsource-parser"
import { describe, expect } from "vitest"
import { readSse, type SseEvent } from "../src/read-sse.ts"

const encoder = new TextEncoder()

/** The events of `text` fed to one parser whole, and a last event without its blank line. */
function oracle(text: string): SseEvent[] {
  const events: SseEvent[] = []
  const parser = createParser({
    onEvent: (message) => events.push({ event: message.event, data: message.data }),
  })
  parser.feed(text)
  parser.feed("\n\n")
  return events
}

/** `bytes` cut at `cuts` (offsets, any order, repeats allowed): the chunks a network might deliver. */
function split(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Uint8Array[] = []
  let from = 0
  for (const to of [...at, bytes.length]) {
    if (to > from) chunks.push(bytes.subarray(from, to))
    from = Math.max(from, to)
  }
  return chunks
}

async function read(chunks: readonly Uint8Array[]): Promise<SseEvent[]> {
  let i = 0
  const items = readSse<SseEvent>(
    {
      getReader: () => ({
        read: async () =>
          i < chunks.length ? { done: false as const, value: chunks[i++]! } : { done: true as const },
        cancel: async () => undefined,
      }),
    },
    { toItems: (event, out) => out.push(event) },
  )
  const events: SseEvent[] = []
  for await (const event of items) events.push(event)
  return events
}

/** One line of a stream: an event's fields, a comment, a blank line, or a line opening with a BOM. */
const value = fc.string({ unit: fc.constantFrom("a", " ", "é", "😀", "{", '"', ":", "\uFEFF") })
const line = fc.oneof(
  value.map((data) => `data: ${data}`),
  value.map((data) => `data:${data}`),
  fc.constantFrom("event: message_delta", "event: response.output_text.delta", "id: 7", "retry: 10"),
  value.map((text) => `: ${text}`),
  fc.constant(""),
  value.map((data) => `\uFEFFdata: ${data}`),
)
const stream = fc
  .tuple(fc.array(fc.tuple(line, fc.constantFrom("\n", "\r\n", "\r")), { maxLength: 30 }), fc.boolean())
  .map(([lines, bom]) => (bom ? "\uFEFF" : "") + lines.map(([text, end]) => text + end).join(""))

describe("readSse", () => {
  it.prop([stream, fc.array(fc.nat(), { maxLength: 12 })], { numRuns: 300 })(
    "gives the events of the whole text for any chunking (parser dropped at rest, split UTF-8, CR/LF, BOM)",
    async (text, cuts) => {
      const bytes = encoder.encode(text)
      expect(await read(split(bytes, cuts))).toEqual(oracle(text))
    },
  )

  it.prop([stream, stream, fc.array(fc.nat(), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 12 })], {
    numRuns: 100,
  })(
    "two streams read at once, sharing the resting parsers, each get their own events",
    async (a, b, cutsA, cutsB) => {
      const [eventsA, eventsB] = await Promise.all([
        read(split(encoder.encode(a), cutsA)),
        read(split(encoder.encode(b), cutsB)),
      ])
      expect(eventsA).toEqual(oracle(a))
      expect(eventsB).toEqual(oracle(b))
    },
  )

  it.prop([fc.array(fc.tuple(value, fc.boolean()), { minLength: 1, maxLength: 10 })])(
    "gives the same events when every chunk ends at an event boundary (a new parser per chunk)",
    async (events) => {
      const frames = events.map(([data, bom]) => `${bom ? "\uFEFF" : ""}data: ${data}\n\n`)
      expect(await read(frames.map((frame) => encoder.encode(frame)))).toEqual(oracle(frames.join("")))
    },
  )
})
