import type { ClientHeaders } from "./forward-headers.ts"
import { clientHeader } from "./request-guard.ts"

/**
 * The request body as bytes, or `"too-large"` once it passes `limit` (the rest is not read).
 * A body with a declared length within the limit is read whole (`arrayBuffer()`: on Node,
 * `@hono/node-server` reads it straight from the socket, with no web request or stream made for
 * it); a body without one is read chunk by chunk and cut at the limit.
 */
export async function readBody(
  request: Request,
  limit: number,
  headers: ClientHeaders = request.headers,
): Promise<Uint8Array<ArrayBuffer> | "too-large"> {
  // From the headers the host gave (Node's `rawHeaders`): on Node, `request.headers` would make a
  // web `Headers` of every header for this one, before the request can go upstream.
  const length = clientHeader(headers, "content-length")
  const declared = length === null ? Number.NaN : Number(length)
  if (declared > limit) return "too-large"
  if (Number.isSafeInteger(declared) && declared >= 0) {
    const body = new Uint8Array(await request.arrayBuffer())
    // HTTP framing holds the body to its declared length; a runtime that does not is cut here.
    return body.byteLength > limit ? "too-large" : body
  }
  if (request.body === null) return new Uint8Array()
  const reader = request.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  for (;;) {
    const chunk = await reader.read()
    if (chunk.done) break
    size += chunk.value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      return "too-large"
    }
    parts.push(chunk.value)
  }
  const body = new Uint8Array(size)
  let offset = 0
  for (const part of parts) {
    body.set(part, offset)
    offset += part.byteLength
  }
  return body
}
