/**
 * The time-to-first-byte client in a process of its own, as an outside user measures a proxy:
 * node:http requests (no fetch, no web streams), on a fresh connection each or on one kept
 * alive, streaming, with tools in the request (the proxy's recovered path). Started by
 * `proxy.bench.ts` with `fork(file, [upstream])`; to `{ type: "cell", … }` (a {@link Cell}) it
 * answers `{ type: "cell", samples }`, one {@link Sample} list per URL, the URLs taken in
 * alternation request by request (noise hits every path alike). Each stream's write times come
 * from the upstream's `GET /written` (`sse-upstream.ts`), after the stream, untimed.
 */
import { Agent, request } from "node:http"
import type { Workload } from "./sse-upstream.ts"

export type ProtocolName = "chat" | "responses" | "messages"

export interface Cell {
  readonly type: "cell"
  readonly protocol: ProtocolName
  /** A new connection per request (`Connection: close`), else one kept alive per URL. */
  readonly fresh: boolean
  /** Base URLs (`…/v1`): direct, through the floor, through the proxy. */
  readonly urls: readonly string[]
  readonly requests: number
  readonly workload: Workload
}

export interface Sample {
  /** Request sent → response headers, ms. */
  readonly headers: number
  /** Request sent → the first text delta read, ms. */
  readonly firstText: number
  /** Each later text delta: the client's read minus the upstream's write, ms. */
  readonly lags: readonly number[]
}

const upstream = process.argv[2]
if (upstream === undefined || process.send === undefined)
  throw new Error("bench: run me with fork(file, [upstream])")
const upstreamOrigin = new URL(upstream).origin

/** Tools as agents send them: a few, with schemas (the proxy's detector runs on every delta). */
const FUNCTIONS = [
  {
    name: "read_file",
    description: "Read a file.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "write_file",
    description: "Write a file.",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
  },
  {
    name: "bash",
    description: "Run a shell command.",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
]
const PROMPT = "Explain the parser."

/** The request body of `protocol` for stream `id`. */
function body(protocol: ProtocolName, id: string, workload: Workload): string {
  const common = { model: "bench", stream: true, user: id, metadata: { workload } }
  if (protocol === "chat")
    return JSON.stringify({
      ...common,
      messages: [{ role: "user", content: PROMPT }],
      tools: FUNCTIONS.map((f) => ({ type: "function", function: f })),
    })
  if (protocol === "responses")
    return JSON.stringify({
      ...common,
      input: PROMPT,
      tools: FUNCTIONS.map((f) => ({ type: "function", ...f, strict: false })),
    })
  return JSON.stringify({
    ...common,
    max_tokens: 1024,
    messages: [{ role: "user", content: PROMPT }],
    tools: FUNCTIONS.map((f) => ({ name: f.name, description: f.description, input_schema: f.parameters })),
  })
}

const PATHS: Record<ProtocolName, string> = {
  chat: "/chat/completions",
  responses: "/responses",
  messages: "/messages",
}

/** The text an SSE event's data carries in `protocol` (empty for none). */
function textOf(protocol: ProtocolName, data: string): string {
  if (!data.startsWith("{")) return ""
  const event = JSON.parse(data) as Record<string, unknown>
  if (protocol === "chat")
    return (event.choices as { delta?: { content?: string } }[] | undefined)?.[0]?.delta?.content ?? ""
  if (protocol === "responses") return event.type === "response.output_text.delta" ? String(event.delta) : ""
  const delta = event.delta as { type?: string; text?: string } | undefined
  return event.type === "content_block_delta" && delta?.type === "text_delta" ? (delta.text ?? "") : ""
}

let streams = 0
const agents = new Map<string, Agent>()

/** One stream: headers, first text delta and each text delta's arrival (epoch ms). */
function once(cell: Cell, base: string, id: string) {
  const url = new URL(`${base}${PATHS[cell.protocol]}`)
  const payload = body(cell.protocol, id, cell.workload)
  let agent: Agent | false = false
  if (!cell.fresh) {
    agent = agents.get(url.origin) ?? new Agent({ keepAlive: true, maxSockets: 1 })
    agents.set(url.origin, agent)
  }
  return new Promise<{ headers: number; firstText: number; arrived: number[] }>((resolve, reject) => {
    const started = performance.now()
    let headers = 0
    let firstText = 0
    const arrived: number[] = []
    let chars = 0
    let buffer = ""
    const outgoing = request(url, {
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(payload),
        "anthropic-version": "2023-06-01",
      },
    })
    outgoing.on("error", reject)
    outgoing.on("response", (incoming) => {
      headers = performance.now() - started
      incoming.setEncoding("utf8")
      incoming.on("data", (text: string) => {
        const now = performance.now()
        buffer += text
        let end = buffer.indexOf("\n\n")
        while (end >= 0) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          end = buffer.indexOf("\n\n")
          const data = frame.slice(frame.indexOf("data: ") + 6)
          const delta = textOf(cell.protocol, data)
          if (delta === "") continue
          if (firstText === 0) firstText = now - started
          chars += delta.length
          // The delta whose last character arrived (the proxy may split or join deltas).
          while (arrived.length < Math.floor(chars / cell.workload.size))
            arrived.push(performance.timeOrigin + now)
        }
      })
      incoming.on("end", () => resolve({ headers, firstText, arrived }))
      incoming.on("error", reject)
    })
    outgoing.end(payload)
  })
}

async function written(id: string): Promise<number[]> {
  const response = await fetch(`${upstreamOrigin}/written?id=${id}`)
  return (await response.json()) as number[]
}

async function run(cell: Cell): Promise<Sample[][]> {
  const samples: Sample[][] = cell.urls.map(() => [])
  const { urls } = cell
  for (let i = 0; i < cell.requests; i++)
    for (let k = 0; k < urls.length; k++) {
      // Each path in turn first: what follows another path's request (a busy upstream) hits all alike.
      const path = (i + k) % urls.length
      const base = urls[path]!
      const id = `c${process.pid}-${streams++}`
      const { headers, firstText, arrived } = await once(cell, base, id)
      const times = await written(id)
      const lags = arrived.slice(1).map((time, k) => time - times[k + 1]!)
      samples[path]!.push({ headers, firstText, lags })
    }
  return samples
}

process.on("message", async (message: Cell | { type: "close" }) => {
  if (message.type === "close") {
    for (const agent of agents.values()) agent.destroy()
    process.exit(0)
  }
  process.send?.({ type: "cell", samples: await run(message) })
})
process.send({ type: "ready", url: "" })
