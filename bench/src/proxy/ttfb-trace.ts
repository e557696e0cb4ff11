/**
 * Where a hop's time to first byte goes, for `bench proxy-ttfb`: preloaded in the proxy's and the
 * floor's processes (`BENCH_FLOOR_TOO=1 BENCH_PROXY_NODE_FLAGS="--import <this file>"`), it stamps
 * each request's steps from Node's and undici's diagnostics channels and the response's writes,
 * and prints on exit the median of each step over the last 1200 requests (the measured rounds).
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
}

const requests: Stamps[] = []
let current: Stamps | undefined
const FIRST_TEXT = "The "

function carriesText(chunk: unknown): boolean {
  if (typeof chunk === "string") return chunk.includes(FIRST_TEXT)
  return chunk instanceof Uint8Array && Buffer.from(chunk).includes(FIRST_TEXT)
}

subscribe("http.server.request.start", () => {
  current = { arrived: performance.now() }
  requests.push(current)
})
subscribe("undici:request:create", () => {
  if (current !== undefined) current.created ??= performance.now()
})
subscribe("undici:client:sendHeaders", () => {
  if (current !== undefined) current.written ??= performance.now()
})
subscribe("undici:request:headers", () => {
  if (current !== undefined) current.upstreamHeaders ??= performance.now()
})
subscribe("undici:request:bodyChunkReceived", (message) => {
  if (
    current !== undefined &&
    current.upstreamText === undefined &&
    carriesText((message as { chunk: unknown }).chunk)
  )
    current.upstreamText = performance.now()
})
const { flushHeaders, write } = ServerResponse.prototype
ServerResponse.prototype.flushHeaders = function (this: ServerResponse) {
  if (current !== undefined) current.flushed ??= performance.now()
  flushHeaders.call(this)
}
ServerResponse.prototype.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
  if (current !== undefined && current.text === undefined && carriesText(chunk))
    current.text = performance.now()
  return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
} as typeof write

const STEPS: readonly [string, keyof Stamps, keyof Stamps][] = [
  ["arrival → undici request", "arrived", "created"],
  ["undici request → its headers written", "created", "written"],
  ["upstream headers → client headers flushed", "upstreamHeaders", "flushed"],
  ["upstream headers → first text written", "upstreamHeaders", "text"],
  ["upstream first text → first text written", "upstreamText", "text"],
]

process.on("exit", () => {
  const measured = requests.slice(-1200)
  const line = STEPS.map(([name, from, to]) => {
    const spans = measured
      .filter((r) => r[from] !== undefined && r[to] !== undefined)
      .map((r) => r[to]! - r[from]!)
      .sort((a, b) => a - b)
    return `${name} ${spans.length === 0 ? "-" : (1000 * spans[spans.length >> 1]!).toFixed(0)} µs`
  })
  process.stderr.write(`ttfb-trace ${process.argv[1]?.split("/").pop()}: ${line.join("; ")}\n`)
})
