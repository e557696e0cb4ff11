import type { ResponseHead } from "./proxy-context.ts"
import type { ByteReader } from "./read-sse.ts"
import { UpstreamFailure } from "./upstream-failure.ts"

/** The part of Node's `ServerResponse` (HTTP/1.1 or HTTP/2) an event stream is written to. */
export interface EventStreamOutgoing {
  readonly destroyed: boolean
  /** The whole response was handed to the connection. */
  readonly writableFinished: boolean
  writeHead(
    status: number,
    statusMessage: string | undefined,
    headers: Record<string, string | string[]>,
  ): unknown
  /** HTTP/1.1 only (an HTTP/2 response sends its headers with `writeHead`). */
  flushHeaders?(): void
  write(chunk: Uint8Array): boolean
  end(): unknown
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
 * at once, with the first chunk when it is ready, else on their own (the server would first
 * read up to three chunks of a body of unknown length, waiting a timer tick for the second, to
 * compute a `content-length`, delaying every stream's first event); a recovered stream is
 * written straight from its reads, with no web stream or `Response` between (memory per open
 * stream); and a body that fails the way upstreams do (a cut connection — undici's
 * `TypeError: terminated` — or an idle timeout) cuts the client's connection quietly, where the
 * server would `console.error` it. Any other failure is a bug: it is logged, as the server
 * would, and the connection destroyed with it.
 *
 * Backpressure: the next chunk is read only once `outgoing` drained. A client that goes away
 * (`close`) cancels the body, which aborts the upstream request. Never rejects.
 */
export function writeEventStream(
  head: ResponseHead,
  body: ByteReader,
  outgoing: EventStreamOutgoing,
): Promise<void> {
  try {
    // Given to `writeHead` at once, not set one by one: a header set with `setHeader` stays in
    // the response's own header table for the stream's life (a few hundred bytes a stream).
    const headers: Record<string, string | string[]> = {}
    head.headers.forEach((value, name) => {
      if (name !== "set-cookie") headers[name] = value
    })
    const cookies = head.headers.getSetCookie()
    if (cookies.length > 0) headers["set-cookie"] = cookies
    outgoing.writeHead(head.status, head.statusText || undefined, headers)
  } catch (error) {
    void body.cancel().catch(() => undefined)
    fail(outgoing, error)
    return Promise.resolve()
  }
  // The head is not kept for the stream's life: only the body and the connection are.
  return writeBody(body, outgoing)
}

function fail(outgoing: EventStreamOutgoing, error: unknown): void {
  if (isUpstreamEnd(error)) outgoing.destroy()
  else {
    console.error(error)
    outgoing.destroy(error instanceof Error ? error : new Error(String(error)))
  }
}

async function writeBody(body: ByteReader, outgoing: EventStreamOutgoing): Promise<void> {
  const cancel = () => void body.cancel().catch(() => undefined)
  outgoing.on("close", cancel)
  // The headers leave with the first chunk when it is there at once (one write, one wake-up
  // of the client: the upstream's first event usually arrives with its headers); when it is
  // not (a held marker prefix, a slow first event), they leave alone at the end of this turn.
  let flush: ReturnType<typeof setImmediate> | undefined = setImmediate(() => outgoing.flushHeaders?.())
  try {
    let read = body.read()
    for (;;) {
      const next = await read
      if (flush !== undefined) {
        clearImmediate(flush)
        flush = undefined
      }
      if (next.done) break
      if (!outgoing.write(next.value)) await writable(outgoing)
      read = body.read()
    }
    if (!outgoing.destroyed) outgoing.end()
  } catch (error) {
    fail(outgoing, error)
  } finally {
    outgoing.off("close", cancel)
  }
}
