import { Readable } from "node:stream"
// A namespace, not named imports: `createZstdDecompress` is missing before Node 22.15 (and on
// 20), and a named import of a missing export fails the whole module at load.
import * as zlib from "node:zlib"
import { Agent, type Dispatcher } from "undici"
import { contentCodings, decodersFor } from "./content-codings.ts"
import type { SendUpstream, UpstreamLimits } from "./proxy-context.ts"
import type { ByteReader, ByteSource } from "./read-sse.ts"
import { FieldList } from "./response-headers.ts"
import { codeOf, failureBeforeHeaders, UpstreamFailure } from "./upstream-failure.ts"

/** Statuses whose response has no body. */
const NULL_BODY: ReadonlySet<number> = new Set([101, 103, 204, 205, 304])

type Decoder = () => NodeJS.ReadWriteStream

/**
 * The content codings fetch would have decoded (the proxy asks for `identity`, but a server may
 * not listen); zstd where this Node has it.
 */
const DECODERS: Readonly<Record<string, Decoder>> = {
  gzip: zlib.createGunzip,
  "x-gzip": zlib.createGunzip,
  deflate: zlib.createInflate,
  br: zlib.createBrotliDecompress,
  ...(typeof zlib.createZstdDecompress === "function" ? { zstd: zlib.createZstdDecompress } : {}),
}

/** `list` without its `content-encoding` fields (its body is decoded). */
function withoutCoding(list: FieldList): FieldList {
  const { fields } = list
  const kept: string[] = []
  for (let i = 0; i + 1 < fields.length; i += 2)
    if (fields[i] !== "content-encoding") kept.push(fields[i]!, fields[i + 1]!)
  return new FieldList(kept)
}

/** undici's error codes for its bounds (`connect.timeout`, `headersTimeout`, `bodyTimeout`). */
const WAITED_TOO_LONG: ReadonlySet<unknown> = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT"])
const BODY_TIMEOUT = "UND_ERR_BODY_TIMEOUT"

const DONE = { done: true } as const

/** Bytes that may wait for the proxy's reads before the body is paused (undici's own default). */
const HELD_BYTES = 64 * 1024

/**
 * The reads of a Node `Readable` (undici's body, or its decoder), one pending read at a time.
 * The stream flows (`data`): a chunk that arrives while no read waits is queued, and the stream
 * is paused once {@link HELD_BYTES} wait (resumed when a read takes them), so a body nobody reads
 * stops at that and undici pauses the socket — backpressure without a pause per chunk. Flowing,
 * not `read()` on `readable`: a chunk is taken as it arrives, so the bytes before a cut reach the
 * client before the cut does (a destroyed stream drops its buffer). Listeners are attached at
 * once, so a body that fails before anyone reads it is no unhandled error. A failure is mapped
 * once by its owner's `fail`; a failure after `cancel()` (the proxy's own destroy) is not the upstream's.
 */
class ReadableReader implements ByteReader {
  private readonly stream: Readable
  /** The source's end of the bargain: maps a failure, and destroys the streams on `cancel()`. */
  private readonly owner: ReaderOwner
  private waiting: { resolve(value: Read): void; reject(error: unknown): void } | undefined
  /** Chunks that arrived while no read waited, oldest first, and their bytes. */
  private readonly held: Uint8Array[] = []
  private heldBytes = 0
  private failure: { readonly error: unknown } | undefined
  private ended = false
  private cancelled = false

  constructor(stream: Readable, owner: ReaderOwner) {
    this.stream = stream
    this.owner = owner
    // Bound once: the stream's three listeners are this reader's methods, no closure each.
    stream.on("data", this.onData.bind(this))
    stream.once("end", this.onEnd.bind(this))
    // `on`, not `once`: a destroyed stream may report more than one error.
    stream.on("error", this.onError.bind(this))
  }

  private settle(): void {
    const pending = this.waiting
    if (pending === undefined) return
    this.waiting = undefined
    if (this.failure !== undefined) pending.reject(this.failure.error)
    else pending.resolve(DONE)
  }

  private onData(chunk: Uint8Array): void {
    const pending = this.waiting
    if (pending === undefined) {
      this.held.push(chunk)
      this.heldBytes += chunk.byteLength
      if (this.heldBytes >= HELD_BYTES) this.stream.pause()
      return
    }
    this.waiting = undefined
    pending.resolve({ done: false, value: chunk })
  }

  private onEnd(): void {
    this.ended = true
    this.settle()
  }

  private onError(error: unknown): void {
    if (this.failure !== undefined) return
    this.failure = { error: this.cancelled ? error : this.owner.fail(error) }
    this.settle()
  }

  read(): Promise<Read> {
    const chunk = this.held.shift()
    if (chunk !== undefined) {
      this.heldBytes -= chunk.byteLength
      if (this.stream.isPaused() && this.heldBytes < HELD_BYTES) this.stream.resume()
      return Promise.resolve({ done: false, value: chunk })
    }
    if (this.failure !== undefined) return Promise.reject(this.failure.error)
    if (this.ended) return Promise.resolve(DONE)
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject }
    })
  }

  async cancel(): Promise<void> {
    if (this.cancelled || this.ended) return
    this.cancelled = true
    this.owner.cancel()
  }
}

type Read = { done: false; value: Uint8Array } | typeof DONE

/** What a {@link ReadableReader} asks of the response it reads. */
interface ReaderOwner {
  /** The failure to report for `error` of the body (counted once in the metrics). */
  fail(error: unknown): unknown
  /** The reader was cancelled: destroy the body. */
  cancel(): void
}

/** One upstream response's body on Node: undici's stream, and its decoder when it is compressed. */
class UndiciBody implements ReaderOwner, ByteSource {
  private readonly source: Readable
  private readonly stream: Readable
  private readonly signal: AbortSignal
  private readonly limits: UpstreamLimits
  private readonly reader: ReadableReader

  constructor(source: Readable, stream: Readable, signal: AbortSignal, limits: UpstreamLimits) {
    this.source = source
    this.stream = stream
    this.signal = signal
    this.limits = limits
    this.reader = new ReadableReader(stream, this)
  }

  getReader(): ByteReader {
    return this.reader
  }

  fail(error: unknown): unknown {
    if (this.signal.aborted || UpstreamFailure.isInstance(error)) return error
    const kind = codeOf(error) === BODY_TIMEOUT ? "timeout" : "cut"
    this.limits.failed(kind)
    return new UpstreamFailure(kind, { cause: error })
  }

  cancel(): void {
    this.source.destroy()
    if (this.stream !== this.source) this.stream.destroy()
  }
}

const SLASH = 0x2f

/**
 * A proxy's upstream targets as undici's dispatcher takes them, an origin and a path, without
 * the `URL` (and the strings of its parts) undici's `request(url, …)` makes of every target:
 * a proxy's targets share its upstream's origin (see `upstreamUrl`: no credentials, no
 * fragment), parsed once, so a target's path is the rest of it.
 */
export class UpstreamTargets {
  /** The origin of the last target split. */
  origin = ""

  /** `target`'s path (pathname and query, as undici's `request(url)` sends it); sets {@link origin}. */
  path(target: string): string {
    const { origin } = this
    // A fragment (never sent) or an empty query (`?`, not sent): parsed, as undici would.
    if (
      target.startsWith(origin) &&
      target.charCodeAt(origin.length) === SLASH &&
      !target.includes("#") &&
      !target.endsWith("?")
    )
      return target.slice(origin.length)
    const url = new URL(target)
    this.origin = url.origin
    return url.search ? `${url.pathname}${url.search}` : url.pathname
  }
}

/**
 * The proxy's upstream requests on Node: undici's `request` (the client Node's own `fetch` is
 * built on; its dispatcher's, given the origin and path: {@link UpstreamTargets}), its body read
 * as the Node stream it is — no WHATWG request, fetch controller, web stream or `Response` per
 * request, which is most of an idle stream's memory. The bounds are
 * undici's own: `connect.timeout` and `headersTimeout` (the waits for a connection and for the
 * headers) and `bodyTimeout` (the silence between body bytes; not counted while the proxy holds
 * the body back: undici's socket is then paused), so no timer or abort controller of ours per
 * request. undici keeps these timers at about a second's resolution: a bound is reached up to a
 * second after it elapsed (the defaults are minutes). Redirects are not followed: a proxy passes
 * them on. A compressed body (a server that ignored `identity`) is decoded when every coding is known
 * (see `content-codings.ts`).
 */
export function undiciUpstream(limits: UpstreamLimits): SendUpstream {
  // Keep-alive pool per upstream origin; no per-origin connection cap (like Node's fetch). The
  // connection and the headers are each bounded by `timeoutMs`.
  const dispatcher = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: limits.timeoutMs } })
  const targets = new UpstreamTargets()
  return async (target, upstreamRequest, signal) => {
    const body = upstreamRequest.body
    let answer: Dispatcher.ResponseData
    try {
      const path = targets.path(target)
      answer = await dispatcher.request({
        origin: targets.origin,
        path,
        method: upstreamRequest.method as never,
        headers: upstreamRequest.headers,
        body:
          body instanceof ReadableStream
            ? Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>)
            : body,
        signal,
        headersTimeout: limits.timeoutMs,
        bodyTimeout: limits.idleMs,
      })
    } catch (error) {
      if (signal.aborted) throw error
      const failure = failureBeforeHeaders(
        error,
        WAITED_TOO_LONG.has(codeOf(error)) ? "timeout" : "unreachable",
      )
      limits.failed(failure.kind)
      throw failure
    }
    // Undici's record as a flat list: no web `Headers` on the Node path (see `FieldList`).
    const responseHeaders = FieldList.fromRecord(answer.headers)
    const { statusCode: status } = answer
    if (NULL_BODY.has(status) || upstreamRequest.method === "HEAD") {
      answer.body.resume()
      return { status, statusText: "", headers: responseHeaders, body: null }
    }
    const codings = contentCodings(responseHeaders.get("content-encoding"))
    const decoders = codings.length === 0 ? undefined : decodersFor(codings, DECODERS)
    const source = answer.body
    let stream: Readable = source
    // Each stage's failure ends the last one, which the reader listens to.
    for (const decoder of decoders ?? []) {
      const from = stream
      stream = from.pipe(decoder() as never)
      const to = stream
      from.on("error", (error) => to.destroy(error))
    }
    return {
      status,
      statusText: "",
      // A decoded body's header goes with its coding; an undecoded one keeps it (see `content-codings.ts`).
      headers: decoders === undefined ? responseHeaders : withoutCoding(responseHeaders),
      body: new UndiciBody(source, stream, signal, limits),
    }
  }
}
