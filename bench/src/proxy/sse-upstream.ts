/**
 * The bench's upstream: an SSE server of the three recovered protocols — Chat Completions,
 * Responses, Anthropic Messages, by the request's path — in the bench process (node:http, like a
 * model server's), which records when it wrote each text delta so the client can measure the
 * latency each delta gains on its way — exact, not inferred from the pacing.
 *
 * The request's `user` field names the stream; its `metadata.workload` picks the shape:
 * - `paced`: `deltas` deltas of `size` characters, the first at once, then one every `everyMs`
 *   (a model generating);
 * - `unpaced`: each delta written as soon as the previous one was flushed (the proxy's CPU cost);
 * - `idle`: a few deltas, then nothing until the client leaves (memory of an open stream);
 * - `leak`: a tool call written as text, in one delta, to every attempt: the proxy retries once,
 *   then ends the turn (repeated markup) and remembers it.
 *
 * `GET /written?id=…` answers a stream's write times as JSON (epoch ms), for a client in a
 * process of its own (`ttfb-client-process.ts`); the bench process asks over IPC instead.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"

export interface Workload {
  readonly kind: "paced" | "unpaced" | "idle" | "leak"
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

const LEAK =
  "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"

/** The text of delta `k` of `size` characters (the same in every stream). */
export function deltaText(k: number, size: number): string {
  const start = (k * size) % SENTENCE.length
  return (SENTENCE + SENTENCE).slice(start, start + size)
}

/** One protocol's events: the stream's opening, a text delta, its end (each whole SSE frames). */
interface Events {
  start(id: string): string
  text(id: string, text: string): string
  end(id: string, text: string): string
}

const frame = (data: unknown, name?: string) =>
  `${name === undefined ? "" : `event: ${name}\n`}data: ${JSON.stringify(data)}\n\n`

function chunk(id: string, delta: Record<string, unknown>, finish: string | null = null): string {
  const event = {
    id: `chatcmpl-${id}`,
    object: "chat.completion.chunk",
    created: 1_764_547_200,
    model: "bench",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  }
  return frame(event)
}

const chat: Events = {
  start: (id) => chunk(id, { role: "assistant", content: "" }),
  text: (id, text) => chunk(id, { content: text }),
  end: (id) => `${chunk(id, {}, "stop")}data: [DONE]\n\n`,
}

/** Responses: the lifecycle events, each with its type as the event name. */
function typed(type: string, fields: Record<string, unknown>): string {
  return frame({ type, ...fields }, type)
}

const response = (id: string, status: string, output: unknown[]) => ({
  id: `resp_${id}`,
  object: "response",
  created_at: 1_764_547_200,
  status,
  model: "bench",
  output,
})
const message = (id: string, text: string, status: string) => ({
  type: "message",
  id: `msg_${id}`,
  role: "assistant",
  status,
  content: text === "" && status !== "completed" ? [] : [{ type: "output_text", text, annotations: [] }],
})
const at = (id: string) => ({ item_id: `msg_${id}`, output_index: 0, content_index: 0 })

const responses: Events = {
  start: (id) =>
    typed("response.created", { response: response(id, "in_progress", []) }) +
    typed("response.output_item.added", { output_index: 0, item: message(id, "", "in_progress") }) +
    typed("response.content_part.added", {
      ...at(id),
      part: { type: "output_text", text: "", annotations: [] },
    }),
  text: (id, delta) => typed("response.output_text.delta", { ...at(id), delta }),
  end: (id, text) =>
    typed("response.output_text.done", { ...at(id), text }) +
    typed("response.content_part.done", { ...at(id), part: { type: "output_text", text, annotations: [] } }) +
    typed("response.output_item.done", { output_index: 0, item: message(id, text, "completed") }) +
    typed("response.completed", { response: response(id, "completed", [message(id, text, "completed")]) }),
}

const messages: Events = {
  start: (id) =>
    typed("message_start", {
      message: {
        id: `msg_${id}`,
        type: "message",
        role: "assistant",
        model: "bench",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }) + typed("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  text: (_, text) => typed("content_block_delta", { index: 0, delta: { type: "text_delta", text } }),
  end: () =>
    typed("content_block_stop", { index: 0 }) +
    typed("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 10 },
    }) +
    typed("message_stop", {}),
}

const PROTOCOLS: ReadonlyMap<string, Events> = new Map([
  ["/v1/chat/completions", chat],
  ["/v1/responses", responses],
  ["/v1/messages", messages],
])

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = []
  for await (const part of request) parts.push(part as Buffer)
  return JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>
}

export async function startSseUpstream(): Promise<SseUpstream> {
  const written = new Map<string, number[]>()
  const writtenAt = (id: string) => {
    const times = written.get(id) ?? []
    written.delete(id)
    return times
  }

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? ""
    if (request.method === "GET" && path.startsWith("/written?")) {
      const id = new URLSearchParams(path.slice(path.indexOf("?"))).get("id") ?? ""
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify(writtenAt(id)))
      return
    }
    const events = PROTOCOLS.get(path.split("?")[0] ?? "") ?? chat
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
    response.write(events.start(id))
    let text = ""
    for (let k = 0; k < workload.deltas; k++) {
      if (response.destroyed) return
      // The first delta at once, as a model's first token comes with its headers' turn.
      if ((workload.kind === "paced" || workload.kind === "idle") && k > 0)
        await sleep(workload.everyMs, undefined, { signal: gone }).catch(() => undefined)
      else await new Promise<void>((resolve) => setImmediate(resolve))
      if (response.destroyed) return
      times.push(performance.timeOrigin + performance.now())
      const delta = workload.kind === "leak" ? LEAK : deltaText(k, workload.size)
      text += delta
      if (!response.write(events.text(id, delta)))
        await new Promise<void>((resolve) => response.once("drain", resolve))
    }
    response.end(events.end(id, text))
  }

  const server = createServer((request, response) => {
    answer(request, response).catch(() => response.destroy())
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    writtenAt: async (id) => writtenAt(id),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
