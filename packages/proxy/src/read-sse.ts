import { createParser, type EventSourceMessage } from "eventsource-parser"

/**
 * One server-sent event as read from an upstream stream: its `event:` name (undefined for the
 * default `message`) and its `data:` text.
 */
export interface SseEvent {
  readonly event: string | undefined
  readonly data: string
}

/** The reads {@link readSse} makes of a body: a `ReadableStream`'s reader, or a bounded one. */
export interface ByteReader {
  read(): Promise<
    | { readonly done: true; readonly value?: Uint8Array | undefined }
    | { readonly done: false; readonly value: Uint8Array }
  >
  cancel(reason?: unknown): Promise<void>
}

/** A body {@link readSse} reads: a `ReadableStream<Uint8Array>`, or the proxy's bounded upstream body. */
export interface ByteSource {
  getReader(): ByteReader
}

/**
 * The items an SSE body maps to, as an async iterator that also says whether the next item is
 * already read ({@link SseItems.buffered}): a consumer can batch what one network chunk carried
 * and write it at once.
 */
export interface SseItems<T> extends AsyncIterableIterator<T> {
  /** The next item is in memory: `next()` resolves without reading the network. */
  readonly buffered: boolean
}

/**
 * Reads an SSE body network chunk by network chunk through eventsource-parser (which handles a
 * CR/LF pair split across chunks and buffers linearly) and maps each event to items with
 * `toItems` (which may push none, one or several, and may throw). Bytes are decoded in streaming
 * mode, so a UTF-8 sequence split across chunks is joined before it is parsed; a comment line
 * (`: keep-alive`) is not an event; a last event without its blank line still counts.
 *
 * One promise per item and no generator layers: the items of a chunk are handed out from an
 * array. An error `toItems` throws surfaces after the items of the events before it, and
 * cancels the body; so does `return()`. A body that fails (a cut stream) rejects `next()`.
 */
export function readSse<T>(body: ByteSource, toItems: (event: SseEvent, out: T[]) => void): SseItems<T> {
  const events: SseEvent[] = []
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => events.push({ event: message.event, data: message.data }),
  })
  const decoder = new TextDecoder()
  const reader = body.getReader()
  const items: T[] = []
  let index = 0
  let failure: { readonly error: unknown } | undefined
  let ended = false

  const finish = async (): Promise<void> => {
    if (ended) return
    ended = true
    await reader.cancel().catch(() => undefined)
  }

  async function fill(): Promise<IteratorResult<T, undefined>> {
    for (;;) {
      if (failure !== undefined) {
        const { error } = failure
        failure = undefined
        await finish()
        throw error
      }
      if (ended) return { done: true, value: undefined }
      let chunk: Awaited<ReturnType<typeof reader.read>>
      try {
        chunk = await reader.read()
      } catch (error) {
        ended = true
        throw error
      }
      if (chunk.done) {
        ended = true
        parser.feed(decoder.decode())
        parser.feed("\n\n")
      } else parser.feed(decoder.decode(chunk.value, { stream: true }))
      items.length = 0
      index = 0
      try {
        for (const event of events) toItems(event, items)
      } catch (error) {
        failure = { error }
      }
      events.length = 0
      if (index < items.length) return { done: false, value: items[index++]! }
    }
  }

  return {
    get buffered() {
      return index < items.length
    },
    next() {
      return index < items.length ? Promise.resolve({ done: false, value: items[index++]! }) : fill()
    },
    async return() {
      items.length = 0
      await finish()
      return { done: true, value: undefined }
    },
    [Symbol.asyncIterator]() {
      return this
    },
  }
}

/** The wire text of one event: an `event:` line when named, then `data:`, then the blank line. */
export function sseFrame(data: string, event?: string): string {
  const name = event === undefined ? "" : `event: ${event}\n`
  // A data value never holds a line break here: every value is one line of JSON.
  return `${name}data: ${data}\n\n`
}
