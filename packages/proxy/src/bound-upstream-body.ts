import { UpstreamFailure } from "./upstream-failure.ts"

/** What {@link boundUpstreamBody} needs besides the response. */
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
 * `response` with its body bounded, for every reader of it (a streamed relay, the SSE reader,
 * `text()`):
 * - a read that waits `idleMs` for the upstream's next bytes aborts the upstream request and fails
 *   with {@link UpstreamFailure} `timeout`;
 * - a read that fails otherwise (the connection was cut) fails with `cut`;
 * - once `signal` aborted, a failing read's error passes as it is (the client left).
 *
 * The idle clock runs only while a read waits: a client that reads slowly holds the upstream back
 * (backpressure) and is not an idle upstream. One timer per body at most, set when a read starts
 * with none pending and re-set for the time left when it fires during a later read, so chunks
 * cost no timer each. The body is pulled on demand (`highWaterMark` 0): nothing is buffered here.
 */
export function boundUpstreamBody(response: Response, bound: BodyBound): Response {
  const source = response.body
  if (source === null) return response
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

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        waitingSince = performance.now()
        timer ??= setTimeout(check, bound.idleMs)
        let next: Awaited<ReturnType<typeof reader.read>>
        try {
          next = await reader.read()
        } catch (error) {
          stop()
          throw failure(error)
        }
        waitingSince = undefined
        // The idle bound cancelled the source, which ends a pending read as if the body were done.
        if (idle !== undefined) throw idle
        if (next.done) {
          stop()
          controller.close()
        } else controller.enqueue(next.value)
      },
      cancel(reason) {
        stop()
        return reader.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}
