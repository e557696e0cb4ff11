/**
 * `user:pass@` of an upstream URL as a `Basic` `Authorization` header (RFC 7617; fetch refuses a
 * URL with credentials, and undici would drop them), or undefined for a URL without them. The
 * pair is percent-decoded, then sent as UTF-8. Platform-neutral (`btoa`, no `Buffer`). Throws a
 * `TypeError` when the pair is not valid percent-encoding (a misconfigured upstream, API misuse).
 *
 * @example
 * ```ts
 * import { basicCredentials } from "@tool-rescue/proxy"
 *
 * basicCredentials(new URL("http://me:s%40cret@127.0.0.1:8000/v1")) // "Basic bWU6c0BjcmV0"
 * basicCredentials(new URL("http://127.0.0.1:8000/v1")) // undefined
 * ```
 */
export function basicCredentials(url: URL): string | undefined {
  if (url.username === "" && url.password === "") return undefined
  let pair: string
  try {
    pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
  } catch {
    throw new TypeError("tool-rescue proxy: the upstream URL's user:password is not valid percent-encoding")
  }
  let binary = ""
  for (const byte of new TextEncoder().encode(pair)) binary += String.fromCharCode(byte)
  return `Basic ${btoa(binary)}`
}
