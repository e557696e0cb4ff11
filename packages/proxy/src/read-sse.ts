import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser"

const LF = 0x0a

/** A parser and its decoder, lent to one stream at a time (see {@link readSse}). */
interface Parsing {
  readonly parser: EventSourceParser
  readonly decoder: InstanceType<typeof TextDecoder>
  /** Where its events go: the events of the stream it is lent to. */
  events: SseEvent[]
}

/** Where a resting parser's events would go: it is fed only once lent again. */
const NOBODY: SseEvent[] = []
/** Parsers at rest, for any stream's next chunk; at most {@link MAX_RESTING} kept. */
const resting: Parsing[] = []
const MAX_RESTING = 64

function newParsing(events: SseEvent[]): Parsing {
  const parsing: Parsing = {
    parser: createParser({
      onEvent: (message: EventSourceMessage) =>
        parsing.events.push({ event: message.event, data: message.data }),
    }),
    // `ignoreBOM`: the decoder keeps a byte-order mark for the parser, which strips the body's
    // first one only (WHATWG HTML §9.2.6); a decoder made again would strip another.
    decoder: new TextDecoder("utf-8", { ignoreBOM: true }),
    events,
  }
  return parsing
}

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
  buffered(): boolean
}

/** What {@link readSse} maps each event with: an object, so a stream's state can be the mapper. */
export interface SseMapper<T> {
  /** Pushes the items of `event` to `out` (none, one or several); may throw. */
  toItems(event: SseEvent, out: T[]): void
  /**
   * Called with each network chunk before its events are mapped, and with `undefined` when the
   * body ends. `whole`: the chunk starts and ends at an event boundary, so its bytes are the wire
   * text of the events mapped next (and of any comment or field line among them), nothing more.
   * May push items to `out` (before those of the chunk's events).
   */
  received?(bytes: Uint8Array | undefined, whole: boolean, out: T[]): void
  /**
   * Whether the events mapped so far include the protocol's last (its end event or sentinel):
   * the items end with that chunk's, whether or not the upstream closes its body (see
   * {@link readSse}).
   */
  over?(): boolean
}

/**
 * Reads an SSE body network chunk by network chunk through eventsource-parser (which handles a
 * CR/LF pair split across chunks and buffers linearly) and maps each event to items with
 * `mapper.toItems` (which may push none, one or several, and may throw). Bytes are decoded in
 * streaming mode, so a UTF-8 sequence split across chunks is joined before it is parsed; a
 * comment line (`: keep-alive`) is not an event; a last event without its blank line still counts.
 *
 * One promise per item and no generator layers: the items of a chunk are handed out from an
 * array. An error `toItems` throws surfaces after the items of the events before it, and
 * cancels the body; so does `return()`. A body that fails (a cut stream) rejects `next()`.
 *
 * Memory of an idle stream: the parser and the decoder are given back whenever a chunk ends at
 * an event boundary (`\n\n`: no partial line, event or UTF-8 sequence is pending in them, and
 * the `id` / `retry` fields they remember are not read here) to a pool every stream borrows
 * from for its next chunk, so a stream that waits between events holds neither and a busy one
 * makes no parser per chunk. Only the body's first chunk gets a parser never fed (which strips
 * a leading byte-order mark); a borrowed one is past that check, and one made for a later chunk
 * is first fed an empty line (which dispatches nothing).
 *
 * The items end with the chunk that carried the protocol's last event (`mapper.over()`): an
 * upstream that sent it but keeps its response open holds nobody's stream. The rest of its body
 * is read and dropped, so a server that closes at once keeps its connection for the next
 * request; one still open {@link LINGER_MS} later is cut.
 *
 * @example
 * ```ts
 * const items = readSse(response.body, { toItems: (event, out) => out.push(event.data) })
 * for await (const data of items) console.log(data)
 * ```
 */
export function readSse<T>(body: ByteSource, mapper: SseMapper<T>): SseItems<T> {
  return new SseReader(body.getReader(), mapper)
}

/**
 * The state of {@link readSse} as fields, its steps prototype methods: a stream waiting for the
 * upstream holds this object and its pending read's two handlers, not a closure per step.
 */
class SseReader<T> implements SseItems<T> {
  private readonly reader: ByteReader
  private readonly mapper: SseMapper<T>
  private readonly events: SseEvent[] = []
  /** The parser and decoder of the current burst; undefined at rest (see {@link readSse}). */
  private parsing: Parsing | undefined
  private rested = false
  private readonly items: T[] = []
  private index = 0
  private failure: { readonly error: unknown } | undefined
  private ended = false
  /**
   * The pending read's handlers: a promise chain, not an async function, so a stream waiting for
   * the upstream holds one pending read and these two, not a suspended frame. Bound methods, not
   * arrow functions made in the constructor: with those, every stream's whole graph outlived the
   * young-generation GCs (`test/young-garbage.test.ts`).
   */
  private readonly onChunk: (
    chunk: Chunk,
  ) => IteratorResult<T, undefined> | Promise<IteratorResult<T, undefined>>
  private readonly onReadFailure: (error: unknown) => never

  constructor(reader: ByteReader, mapper: SseMapper<T>) {
    this.reader = reader
    this.mapper = mapper
    this.onChunk = this.chunk.bind(this)
    this.onReadFailure = this.readFailed.bind(this)
  }

  buffered(): boolean {
    return this.index < this.items.length
  }

  next(): Promise<IteratorResult<T, undefined>> {
    return this.index < this.items.length ? Promise.resolve({ done: false, value: this.take() }) : this.fill()
  }

  async return(): Promise<IteratorResult<T, undefined>> {
    this.items.length = 0
    await this.finish()
    return DONE
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  private rest(done: Parsing): void {
    this.parsing = undefined
    this.rested = true
    if (resting.length >= MAX_RESTING) return
    done.events = NOBODY
    resting.push(done)
  }

  private feed(bytes: Uint8Array | undefined): void {
    let parsing = this.parsing
    if (parsing === undefined) {
      const lent = this.rested ? resting.pop() : undefined
      if (lent === undefined) {
        parsing = newParsing(this.events)
        if (this.rested) parsing.parser.feed("\n")
      } else {
        lent.events = this.events
        parsing = lent
      }
      this.parsing = parsing
    }
    const { parser, decoder } = parsing
    if (bytes === undefined) {
      parser.feed(decoder.decode())
      parser.feed("\n\n")
      this.rest(parsing)
      return
    }
    parser.feed(decoder.decode(bytes, { stream: true }))
    const end = bytes.length
    if (end >= 2 && bytes[end - 1] === LF && bytes[end - 2] === LF) this.rest(parsing)
  }

  private async finish(): Promise<void> {
    if (this.ended) return
    this.ended = true
    await this.reader.cancel().catch(() => undefined)
  }

  /**
   * The next item of the chunk read (there is one). The array lets go of the last one as it
   * leaves: a stream that waits for the upstream keeps no item it handed out.
   */
  private take(): T {
    const { items } = this
    const item = items[this.index++]!
    if (this.index === items.length) {
      items.length = 0
      this.index = 0
    }
    return item
  }

  /** The next item once `chunk` (a read of the body) is parsed, or the next read's. */
  private chunk(chunk: Chunk): IteratorResult<T, undefined> | Promise<IteratorResult<T, undefined>> {
    const { mapper, items, events } = this
    items.length = 0
    this.index = 0
    if (chunk.done) {
      this.ended = true
      this.feed(undefined)
      mapper.received?.(undefined, false, items)
    } else {
      // At rest before and after the feed: the chunk began and ended at an event boundary.
      const boundary = this.parsing === undefined
      this.feed(chunk.value)
      mapper.received?.(chunk.value, boundary && this.parsing === undefined, items)
    }
    try {
      for (const event of events) mapper.toItems(event, items)
    } catch (error) {
      this.failure = { error }
    }
    events.length = 0
    if (!this.ended && mapper.over?.() === true) {
      this.ended = true
      drain(this.reader)
    }
    return this.index < items.length ? { done: false, value: this.take() } : this.fill()
  }

  private readFailed(error: unknown): never {
    this.ended = true
    throw error
  }

  private fill(): Promise<IteratorResult<T, undefined>> {
    const { failure } = this
    if (failure !== undefined) {
      this.failure = undefined
      return this.finish().then(() => Promise.reject(failure.error))
    }
    if (this.ended) return Promise.resolve(DONE)
    return this.reader.read().then(this.onChunk, this.onReadFailure)
  }
}

type Chunk = Awaited<ReturnType<ByteReader["read"]>>

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined }

/** How long a body may stay open after its last event before it is cut (see {@link readSse}). */
export const LINGER_MS = 1000

/** Reads `reader` to its end, dropping what comes; cancels it if it is still open after {@link LINGER_MS}. */
function drain(reader: ByteReader): void {
  const cut = setTimeout(() => void reader.cancel().catch(() => undefined), LINGER_MS)
  cut.unref?.()
  const step = (): Promise<void> => reader.read().then((next) => (next.done ? undefined : step()))
  step()
    .catch(() => undefined)
    .finally(() => clearTimeout(cut))
}

/**
 * The wire text of one event: an `event:` line when named, then `data:` (a line each for a value
 * of several lines: an upstream may write its JSON over several `data:` lines), then the blank line.
 */
export function sseFrame(data: string, event?: string): string {
  const name = event === undefined ? "" : `event: ${event}\n`
  const lines = data.includes("\n") ? data.replaceAll("\n", "\ndata: ") : data
  return `${name}data: ${lines}\n\n`
}
