/**
 * Where a hop's time to first byte goes, for `bench proxy-ttfb`: preloaded in the proxy's and the
 * floor's processes (`BENCH_FLOOR_TOO=1 BENCH_PROXY_NODE_FLAGS="--import <this file>"`), it stamps
 * each request's steps from Node's and undici's diagnostics channels and the response's writes,
 * and prints on exit, over the last 1200 requests (the measured rounds), the median of each
 * step; then the steps as they happened, request by request: the most common orders (the first
 * text delta in the upstream's first network chunk or in a later one, …), each with the median
 * of every step to the next, up to the first text delta's write. Medians of one order's steps
 * add up to its total; medians of steps taken from different orders do not.
 * The bench sends one request at a time per process, so the request in flight is the last one.
 * The first text delta is the bench upstream's first (`"The "`, `sse-upstream.ts`).
 */
import { subscribe } from "node:diagnostics_channel"
import { ServerResponse } from "node:http"

interface Stamps {
  arrived: number
  created?: number
  written?: number
  upstreamHeaders?: number
  flushed?: number
  upstreamText?: number
  text?: number
  /** Every step in order, up to the first text delta's write. */
  readonly steps: [string, number][]
}

const requests: Stamps[] = []
let current: Stamps | undefined
const FIRST_TEXT = "The "

function carriesText(chunk: unknown): boolean {
  if (typeof chunk === "string") return chunk.includes(FIRST_TEXT)
  return chunk instanceof Uint8Array && Buffer.from(chunk).includes(FIRST_TEXT)
}

function step(name: string, at: number): void {
  if (current !== undefined && current.text === undefined) current.steps.push([name, at])
}

subscribe("http.server.request.start", () => {
  const now = performance.now()
  current = { arrived: now, steps: [["arrived", now]] }
  requests.push(current)
})
subscribe("undici:request:create", () => {
  const now = performance.now()
  if (current !== undefined) current.created ??= now
  step("undici request", now)
})
subscribe("undici:client:sendHeaders", () => {
  const now = performance.now()
  if (current !== undefined) current.written ??= now
  step("upstream request written", now)
})
subscribe("undici:request:headers", () => {
  const now = performance.now()
  if (current !== undefined) current.upstreamHeaders ??= now
  step("upstream headers", now)
})
subscribe("undici:request:bodyChunkReceived", (message) => {
  const now = performance.now()
  const text = carriesText((message as { chunk: unknown }).chunk)
  if (current !== undefined && current.upstreamText === undefined && text) current.upstreamText = now
  step(text ? "upstream chunk, text" : "upstream chunk", now)
})
const { flushHeaders, write } = ServerResponse.prototype
ServerResponse.prototype.flushHeaders = function (this: ServerResponse) {
  const now = performance.now()
  if (current !== undefined) current.flushed ??= now
  step("head flushed", now)
  flushHeaders.call(this)
  step("head flush returned", performance.now())
}
ServerResponse.prototype.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
  const now = performance.now()
  const text = carriesText(chunk)
  step(text ? "text written" : "written", now)
  if (current !== undefined && current.text === undefined && text) current.text = now
  return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
} as typeof write

const STEPS: readonly [string, keyof Stamps, keyof Stamps][] = [
  ["arrival → undici request", "arrived", "created"],
  ["undici request → its headers written", "created", "written"],
  ["upstream headers → client headers flushed", "upstreamHeaders", "flushed"],
  ["upstream headers → first text written", "upstreamHeaders", "text"],
  ["upstream first text → first text written", "upstreamText", "text"],
]

const µs = (ms: number | undefined) => (ms === undefined ? "-" : `${(1000 * ms).toFixed(0)} µs`)

function median(values: readonly number[]): number | undefined {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]
}

/** The most common orders of steps, each with its requests' median per step. */
function orders(measured: readonly Stamps[]): string {
  const byOrder = new Map<string, Stamps[]>()
  for (const r of measured) {
    if (r.text === undefined) continue
    const order = r.steps.map(([name]) => name).join(" > ")
    const list = byOrder.get(order) ?? []
    list.push(r)
    byOrder.set(order, list)
  }
  const lines: string[] = []
  for (const [order, list] of [...byOrder].sort((a, b) => b[1].length - a[1].length).slice(0, 2)) {
    const names = order.split(" > ")
    const total = median(list.map((r) => r.text! - r.arrived))
    lines.push(`  ${list.length} requests in this order, arrival → first text written ${µs(total)}:`)
    for (let i = 1; i < names.length; i++) {
      const span = median(list.map((r) => r.steps[i]![1] - r.steps[i - 1]![1]))
      lines.push(`    ${`${names[i - 1]} → ${names[i]}`.padEnd(58)} ${µs(span)}`)
    }
  }
  return lines.join("\n")
}

process.on("exit", () => {
  const measured = requests.slice(-1200)
  const line = STEPS.map(([name, from, to]) => {
    const spans = measured
      .filter((r) => r[from] !== undefined && r[to] !== undefined)
      .map((r) => (r[to] as number) - (r[from] as number))
    return `${name} ${µs(median(spans))}`
  })
  process.stderr.write(
    `ttfb-trace ${process.argv[1]?.split("/").pop()}: ${line.join("; ")}\n${orders(measured)}\n`,
  )
})
