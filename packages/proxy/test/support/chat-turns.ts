/**
 * Chat Completions requests as an agent sends them, each a new user turn, for the tests that
 * count what the proxy and its upstream did: the proxy's own and the CLI's `serve` tests (through
 * a relative import: test code, never published).
 */

/** What every request of a {@link chatTurns} sender carries. */
export interface ChatTurnsOptions {
  /** The user message; each request adds ` (turn N)`. */
  readonly prompt: string
  /** The `Authorization` header. */
  readonly authorization: string
  readonly tools: readonly unknown[]
  /** @defaultValue "qwen3-coder" */
  readonly model?: string
}

/**
 * A sender of `POST {url}/chat/completions`, each call a new user turn: the proxy answers a
 * resend of a turn it ended (the same request) from its memory, without going upstream, and these
 * tests walk the upstream's script one answer per call.
 *
 * @example
 * ```ts
 * const chat = chatTurns({ prompt: "Show me a.ts", authorization: "Bearer k", tools: [READ_FILE_TOOL] })
 * expect((await chat(proxy.url)).status).toBe(422)
 * await (await chat(proxy.url, true)).text()
 * ```
 */
export function chatTurns({
  prompt,
  authorization,
  tools,
  model = "qwen3-coder",
}: ChatTurnsOptions): (url: string, stream?: boolean, signal?: AbortSignal) => Promise<Response> {
  let turns = 0
  return (url, stream = false, signal) => {
    turns++
    return fetch(`${url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization },
      body: JSON.stringify({
        model,
        stream,
        messages: [{ role: "user", content: `${prompt} (turn ${turns})` }],
        tools,
      }),
      ...(signal === undefined ? {} : { signal }),
    })
  }
}
