import type { ResponseHead } from "./proxy-context.ts"
import type { ByteReader } from "./read-sse.ts"
import { headerFields } from "./response-headers.ts"
import { UpstreamFailure } from "./upstream-failure.ts"

/** The part of Node's `ServerResponse` (HTTP/1.1 or HTTP/2) an event stream is written to. */
export interface EventStreamOutgoing {
  readonly destroyed: boolean
  /** The whole response was handed to the connection. */
  readonly writableFinished: boolean
  writeHead(
    status: number,
    statusMessage: string | undefined,
    /** Name, value, name, value, … (both Node responses take the flat list). */
    headers: string[],
  ): unknown
  /** HTTP/1.1 only (an HTTP/2 response sends its headers with `writeHead`). */
  flushHeaders?(): void
  write(chunk: Uint8Array): boolean
  end(callback?: () => void): unknown
  destroy(error?: Error): unknown
  on(event: "drain" | "close", listener: () => void): unknown
  once(event: "close", listener: () => void): unknown
  off(event: "drain" | "close", listener: () => void): unknown
}

/**
 * Whether a body failed the way upstreams do: its connection was cut, or it stalled past
 * `upstreamIdleTimeoutMs` (both counted in the proxy's metrics where they happened).
 */
function isUpstreamEnd(error: unknown): boolean {
  return UpstreamFailure.isInstance(error) && (error.kind === "cut" || error.kind === "timeout")
}

/** Resolves once `outgoing` can take more (`drain`) or is gone (`close`). */
function writable(outgoing: EventStreamOutgoing): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done)
      outgoing.off("close", done)
      resolve()
    }
    outgoing.on("drain", done)
    outgoing.on("close", done)
  })
}

/**
 * Writes an SSE response — `head`, then the chunks of `body` — to Node's `outgoing`: the job
 * `@hono/node-server` does for other responses, done here for three reasons: the headers go out
 * at once, on their own, as a bare HTTP hop sends them (the server would first read up to three
 * chunks of a body of unknown length, waiting a timer tick for the second, to compute a
 * `content-length`, delaying every stream's first event; held for the first chunk instead, they
 * waited for the upstream's first event to be read, parsed and released: 0.1 ms at p50 in
 * `bench proxy-ttfb`, more behind a held marker prefix); a recovered stream is
 * written straight from its reads, with no web stream or `Response` between (memory per open
 * stream); and a body that fails the way upstreams do (a cut connection — undici's
 * `TypeError: terminated` — or an idle timeout) cuts the client's connection quietly, where the
 * server would `console.error` it. Any other failure is a bug: it is logged, as the server
 * would, and the connection destroyed with it.
 *
 * Backpressure: the next chunk is read only once `outgoing` drained. A client that goes away
 * (`close`) cancels the body, which aborts the upstream request. Never throws.
 */
export function writeEventStream(
  head: ResponseHead,
  body: ByteReader,
  outgoing: EventStreamOutgoing,
  streams?: OpenStreams,
  ending?: Uint8Array,
): void {
  try {
    // Given to `writeHead` at once, not set one by one: a header set with `setHeader` stays in
    // the response's own header table for the stream's life (a few hundred bytes a stream). A
    // flat list, no record: an upstream's header may be named `__proto__`, and the Node entry's
    // upstream headers are that list already (no copy).
    outgoing.writeHead(head.status, head.statusText || undefined, headerFields(head.headers))
    outgoing.flushHeaders?.()
  } catch (error) {
    void body.cancel().catch(() => undefined)
    fail(outgoing, error)
    return
  }
  // The head is not kept for the stream's life: only the body and the connection are.
  new BodyWriter(body, outgoing, streams, ending)
}

/**
 * The event streams a server is writing, for its shutdown: each is ended with its protocol's
 * error event when the grace period is over ({@link endStreams}).
 */
export type OpenStreams = Set<StreamEnd>

/** A stream being written, as its server's shutdown ends it. */
export interface StreamEnd {
  /**
   * Stops reading the body, writes the stream's ending (its protocol's error event, when known,
   * and only at an event boundary) and ends the response; resolves once that is handed to the
   * connection (or the connection is gone).
   */
  cut(): Promise<void>
}

/** Ends every stream of `streams` (see {@link StreamEnd.cut}). */
export async function endStreams(streams: OpenStreams): Promise<void> {
  await Promise.all([...streams].map((writer) => writer.cut()))
}

function fail(outgoing: EventStreamOutgoing, error: unknown): void {
  if (isUpstreamEnd(error)) outgoing.destroy()
  else {
    console.error(error)
    outgoing.destroy(error instanceof Error ? error : new Error(String(error)))
  }
}

/**
 * Writes the chunks of `body` to `outgoing`, then ends it. A promise chain, not an async
 * function: a stream waiting for its next chunk holds this object and its three handlers, not a
 * suspended frame and the promise it awaits.
 */
class BodyWriter implements StreamEnd {
  private readonly body: ByteReader
  private readonly outgoing: EventStreamOutgoing
  private readonly streams: OpenStreams | undefined
  /** The protocol's error event, written if the server cuts the stream. */
  private readonly ending: Uint8Array | undefined
  /** The last chunk written ended an event (`\n\n`), or none was written: an event may follow. */
  private boundary = true
  /** Cut by the server's shutdown: reads still pending are dropped. */
  private cutShort = false
  private readonly onRead: (next: Chunk) => void
  private readonly onFailure: (error: unknown) => void
  /** The client went away: cancel the body (which aborts the upstream request). */
  private readonly onClose: () => void

  constructor(
    body: ByteReader,
    outgoing: EventStreamOutgoing,
    streams: OpenStreams | undefined,
    ending: Uint8Array | undefined,
  ) {
    this.body = body
    this.outgoing = outgoing
    this.streams = streams
    this.ending = ending
    streams?.add(this)
    // Bound methods, not arrow functions made here: with those, every stream's whole graph
    // outlived the young-generation GCs (`test/young-garbage.test.ts`).
    this.onRead = this.write.bind(this)
    this.onFailure = this.stop.bind(this)
    this.onClose = this.cancel.bind(this)
    outgoing.on("close", this.onClose)
    this.read()
  }

  private cancel(): void {
    this.body.cancel().catch(() => undefined)
  }

  private read(): void {
    this.body.read().then(this.onRead, this.onFailure)
  }

  cut(): Promise<void> {
    if (this.cutShort) return Promise.resolve()
    this.stop(undefined)
    this.cutShort = true
    this.cancel()
    const { outgoing } = this
    if (outgoing.destroyed || outgoing.writableFinished) return Promise.resolve()
    return new Promise((resolve) => {
      outgoing.once("close", resolve)
      try {
        if (this.ending !== undefined && this.boundary) outgoing.write(this.ending)
        outgoing.end(resolve)
      } catch {
        resolve()
      }
    })
  }

  private write(next: Chunk): void {
    if (this.cutShort) return
    const { outgoing } = this
    if (next.done) {
      if (!outgoing.destroyed) outgoing.end()
      this.stop(undefined)
      return
    }
    const { value } = next
    this.boundary = value.length >= 2 && value[value.length - 1] === LF && value[value.length - 2] === LF
    try {
      if (outgoing.write(value)) this.read()
      else writable(outgoing).then(() => this.read())
    } catch (error) {
      this.stop(error)
    }
  }

  /** The body is written (`error` undefined) or failed. */
  private stop(error: unknown): void {
    if (this.cutShort) return
    this.streams?.delete(this)
    this.outgoing.off("close", this.onClose)
    if (error !== undefined) fail(this.outgoing, error)
  }
}

type Chunk = Awaited<ReturnType<ByteReader["read"]>>

const LF = 0x0a
