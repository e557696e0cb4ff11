import type { ByteReader, ByteSource } from "./read-sse.ts"
import { UpstreamFailure } from "./upstream-failure.ts"

/** What {@link boundUpstreamBody} needs besides the body. */
export interface BodyBound {
  /** Milliseconds a read may wait for the upstream's next bytes. */
  readonly idleMs: number
  /** Aborts the upstream request (the signal its fetch was given). */
  abort(reason: UpstreamFailure): void
  /** The caller's signal (the client's, or the turn's): once aborted, a failing read is not the upstream's fault. */
  readonly signal: AbortSignal
  /** Counts a failure of the body (`timeout` or `cut`). */
  failed(kind: "timeout" | "cut"): void
}

/**
 * The reads of `source`, bounded by `bound`:
 * - a read that waits `idleMs` for the upstream's next bytes aborts the upstream request and
 *   fails with {@link UpstreamFailure} `timeout`;
 * - a read that fails otherwise (the connection was cut) fails with `cut`;
 * - once `signal` aborted, a failing read's error passes as it is (the client left).
 *
 * The idle clock runs only while a read waits: a client that reads slowly holds the upstream back
 * (backpressure) and is not an idle upstream. One timer per body at most, set when a read starts
 * with none pending and re-set for the time left when it fires during a later read, so chunks
 * cost no timer each.
 */
function boundedReader(source: ReadableStream<Uint8Array>, bound: BodyBound): ByteReader {
  const reader = source.getReader()
  /** When the pending read started; undefined while no read waits. */
  let waitingSince: number | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let idle: UpstreamFailure | undefined

  const check = (): void => {
    timer = undefined
    if (waitingSince === undefined) return
    const left = waitingSince + bound.idleMs - performance.now()
    if (left > 0) {
      timer = setTimeout(check, left)
      return
    }
    idle = new UpstreamFailure("timeout", {})
    bound.failed("timeout")
    bound.abort(idle)
    // A custom fetch may ignore the abort once the headers are in: cancelling ends the read too.
    reader.cancel(idle).catch(() => undefined)
  }
  const stop = (): void => {
    waitingSince = undefined
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const failure = (error: unknown): unknown => {
    if (idle !== undefined) return idle
    if (bound.signal.aborted || UpstreamFailure.isInstance(error)) return error
    bound.failed("cut")
    return new UpstreamFailure("cut", { cause: error })
  }

  return {
    async read() {
      waitingSince = performance.now()
      timer ??= setTimeout(check, bound.idleMs)
      let next: Awaited<ReturnType<ByteReader["read"]>>
      try {
        next = await reader.read()
      } catch (error) {
        stop()
        throw failure(error)
      }
      waitingSince = undefined
      // The idle bound cancelled the source, which ends a pending read as if the body were done.
      if (idle !== undefined) throw idle
      if (next.done) stop()
      return next
    },
    cancel(reason) {
      stop()
      return reader.cancel(reason)
    },
  }
}

/**
 * The body of an upstream's `fetch` response as reads bounded by `bound` (see
 * {@link boundedReader}). No stream is made until a reader asks for one: the SSE reader reads
 * the body's own reader, bounded, with nothing in between.
 */
export function boundUpstreamBody(source: ReadableStream<Uint8Array>, bound: BodyBound): ByteSource {
  return { getReader: () => boundedReader(source, bound) }
}

/** An upstream body read whole as UTF-8 text (its reads bounded as they are). */
export async function upstreamText(body: ByteSource | null): Promise<string> {
  if (body === null) return ""
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const parts: string[] = []
  for (;;) {
    const next = await reader.read()
    if (next.done) break
    parts.push(decoder.decode(next.value, { stream: true }))
  }
  parts.push(decoder.decode())
  return parts.join("")
}
