import type { ByteReader } from "./read-sse.ts"

/**
 * A web `ReadableStream` of `reader`'s chunks, pulled on demand (`highWaterMark` 0: nothing is
 * read ahead or buffered here). Cancelling the stream cancels the reader; a read that fails
 * errors the stream. The bodies of the web handler's responses: a relayed upstream body, a
 * recovered stream.
 */
export function byteStream(reader: ByteReader): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await reader.read()
        if (next.done) controller.close()
        else controller.enqueue(next.value)
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  )
}
