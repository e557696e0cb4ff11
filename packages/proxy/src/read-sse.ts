import { createParser, type EventSourceMessage } from "eventsource-parser"

/**
 * One server-sent event as read from an upstream stream: its `event:` name (undefined for the
 * default `message`) and its `data:` text.
 */
export interface SseEvent {
  readonly event: string | undefined
  readonly data: string
}

/**
 * Reads an SSE body event by event, through eventsource-parser (which handles a CR/LF pair split
 * across network chunks and buffers linearly). Bytes are decoded in streaming mode, so a UTF-8
 * sequence split across chunks is joined before it is parsed. A comment line (`: keep-alive`) is
 * not an event. Cancelling the iteration cancels the body.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent, void, undefined> {
  const queue: SseEvent[] = []
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => queue.push({ event: message.event, data: message.data }),
  })
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let done = false
  try {
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) {
        parser.feed(decoder.decode())
        // A last event without its blank line still counts (the stream ended at a boundary).
        parser.feed("\n\n")
      } else parser.feed(decoder.decode(chunk.value, { stream: true }))
      while (queue.length > 0) yield queue.shift()!
      if (chunk.done) break
    }
    done = true
  } finally {
    if (!done) await reader.cancel().catch(() => undefined)
    reader.releaseLock()
  }
}

/** The wire text of one event: an `event:` line when named, then `data:`, then the blank line. */
export function sseFrame(data: string, event?: string): string {
  const name = event === undefined ? "" : `event: ${event}\n`
  // A data value never holds a line break here: every value is one line of JSON.
  return `${name}data: ${data}\n\n`
}
