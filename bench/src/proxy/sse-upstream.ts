/**
 * The bench's upstream: a Chat Completions SSE server in the bench process (node:http, like a
 * model server's), which records when it wrote each content delta so the client can measure the
 * latency each delta gains on its way — exact, not inferred from the pacing.
 *
 * The request's `user` field names the stream; its `metadata.workload` picks the shape:
 * - `paced`: `deltas` deltas of `size` characters, one every `everyMs` (a model generating);
 * - `unpaced`: each delta written as soon as the previous one was flushed (the proxy's CPU cost);
 * - `idle`: a few deltas, then nothing until the client leaves (memory of an open stream).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"

export interface Workload {
  readonly kind: "paced" | "unpaced" | "idle"
  readonly deltas: number
  readonly size: number
  readonly everyMs: number
}

export interface SseUpstream {
  /** The base URL (`http://127.0.0.1:PORT/v1`). */
  readonly url: string
  /** When each content delta of stream `id` was written (epoch ms); forgets the stream. */
  writtenAt(id: string): Promise<readonly number[]>
  close(): Promise<void>
}

const SENTENCE = "The parser keeps a small state machine per stream and releases text as soon as it can. "

/** The text of delta `k` of `size` characters (the same in every stream). */
export function deltaText(k: number, size: number): string {
  const start = (k * size) % SENTENCE.length
  return (SENTENCE + SENTENCE).slice(start, start + size)
}

function chunk(id: string, delta: Record<string, unknown>, finish: string | null = null): string {
  const event = {
    id: `chatcmpl-${id}`,
    object: "chat.completion.chunk",
    created: 1_764_547_200,
    model: "bench",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  }
  return `data: ${JSON.stringify(event)}\n\n`
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = []
  for await (const part of request) parts.push(part as Buffer)
  return JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>
}

export async function startSseUpstream(): Promise<SseUpstream> {
  const written = new Map<string, number[]>()

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJson(request)
    const id = String(body.user)
    const workload = (body.metadata as { workload: Workload }).workload
    const times: number[] = []
    written.set(id, times)
    // Ends a pause when the client leaves (an idle stream must not keep the process alive).
    const leaving = new AbortController()
    response.once("close", () => leaving.abort())
    const gone = leaving.signal
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    response.write(chunk(id, { role: "assistant", content: "" }))
    for (let k = 0; k < workload.deltas; k++) {
      if (response.destroyed) return
      if (workload.kind === "paced" || (workload.kind === "idle" && k > 0))
        await sleep(workload.everyMs, undefined, { signal: gone }).catch(() => undefined)
      else await new Promise<void>((resolve) => setImmediate(resolve))
      if (response.destroyed) return
      times.push(performance.timeOrigin + performance.now())
      if (!response.write(chunk(id, { content: deltaText(k, workload.size) })))
        await new Promise<void>((resolve) => response.once("drain", resolve))
    }
    response.write(chunk(id, {}, "stop"))
    response.end("data: [DONE]\n\n")
  }

  const server = createServer((request, response) => {
    answer(request, response).catch(() => response.destroy())
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    writtenAt: async (id) => {
      const times = written.get(id) ?? []
      written.delete(id)
      return times
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
