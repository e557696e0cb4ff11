/** The request body as bytes, or `"too-large"` once it passes `limit` (the rest is not read). */
export async function readBody(
  request: Request,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | "too-large"> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN)
  if (declared > limit) return "too-large"
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
