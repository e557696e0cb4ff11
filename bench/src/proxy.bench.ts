/**
 * The recovery proxy (`@tool-rescue/proxy`) beside direct upstream access, on loopback, in one
 * run: the same replay server answers both, the same client (`fetch`) reads both, so the
 * difference is what the proxy adds. Every request offers a tool, so the proxy's detector runs
 * on every delta (the recovered path, not pass-through); the answer is clean prose.
 *
 * - added time to first byte (p50, p99) and throughput (bytes per second, as a ratio of direct)
 *   at 1, 50 and 200 concurrent streams, for two upstreams: `paced` sends a delta every 2 ms
 *   (500 deltas a second per stream, faster than local models generate), so throughput is the
 *   upstream's and the proxy must keep up; `unpaced` sends deltas as fast as it can, so the
 *   proxy's CPU cost per delta shows (client, proxy and upstream share one process);
 * - memory per idle stream: heap after GC with N streams held open mid-answer, through the proxy
 *   minus direct, divided by N.
 *
 * Issue 15's targets: added p99 TTFB ≤ 2 ms; throughput at 200 streams ≥ 90% of direct; memory
 * per idle stream ≤ 16 KB. On a loaded machine, read the ratios, not the absolute figures.
 */
import { cpus, loadavg } from "node:os"
import { startProxyServer } from "@tool-rescue/proxy/node"
import { startReplayServer } from "@tool-rescue/testing"
import { median, registerSuite } from "./suite.ts"

const TOOLS = [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }]
const SENTENCE = "The parser keeps a small state machine per stream and releases text as soon as it can. "
const CONTENT = SENTENCE.repeat(24) // ~2 KB
const CHUNK = 12

interface Sample {
  readonly ttfb: number
  readonly total: number
  readonly bytes: number
}

async function stream(baseUrl: string, workload: string): Promise<Sample> {
  const started = performance.now()
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: workload }],
      tools: TOOLS,
    }),
  })
  const reader = response.body!.getReader()
  let ttfb = 0
  let bytes = 0
  for (;;) {
    const chunk = await reader.read()
    if (chunk.done) break
    if (ttfb === 0) ttfb = performance.now() - started
    bytes += chunk.value.byteLength
  }
  return { ttfb, total: performance.now() - started, bytes }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

interface Row {
  readonly workload: "paced" | "unpaced"
  readonly concurrency: number
  readonly direct: { p50: number; p99: number; throughput: number }
  readonly proxy: { p50: number; p99: number; throughput: number }
}

async function measure(url: string, workload: string, concurrency: number, rounds: number) {
  const ttfbs: number[] = []
  const rates: number[] = []
  for (let r = 0; r < rounds; r++) {
    const started = performance.now()
    const samples = await Promise.all(Array.from({ length: concurrency }, () => stream(url, workload)))
    const elapsed = (performance.now() - started) / 1000
    for (const s of samples) ttfbs.push(s.ttfb)
    rates.push(samples.reduce((sum, s) => sum + s.bytes, 0) / elapsed)
  }
  return { p50: percentile(ttfbs, 50), p99: percentile(ttfbs, 99), throughput: median(rates) }
}

async function idleHeap(url: string, streams: number): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  const before = process.memoryUsage().heapUsed
  const controllers: AbortController[] = []
  const readers = await Promise.all(
    Array.from({ length: streams }, async () => {
      const controller = new AbortController()
      controllers.push(controller)
      const response = await fetch(`${url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        signal: controller.signal,
        body: JSON.stringify({
          model: "m",
          stream: true,
          messages: [{ role: "user", content: "idle" }],
          tools: TOOLS,
        }),
      })
      const reader = response.body!.getReader()
      await reader.read()
      return reader
    }),
  )
  await new Promise((resolve) => setTimeout(resolve, 200))
  gc?.()
  const after = process.memoryUsage().heapUsed
  for (const c of controllers) c.abort()
  await Promise.all(readers.map((r) => r.cancel().catch(() => undefined)))
  return (after - before) / streams
}

export async function benchProxy(): Promise<{ rows: Row[]; idleBytes: number; idleStreams: number }> {
  const upstream = await startReplayServer({
    script: (request) => {
      const asked = JSON.stringify(request.body?.messages ?? [])
      if (asked.includes("idle"))
        return { content: [SENTENCE, ...Array.from({ length: 4 }, () => SENTENCE)], chunkDelayMs: 60_000 }
      return { content: CONTENT, chunkSize: CHUNK, chunkDelayMs: asked.includes("unpaced") ? 0 : 2 }
    },
  })
  const proxy = await startProxyServer({ upstream: upstream.url, port: 0 })
  try {
    // Warm up both paths (JIT, connection pools).
    await measure(upstream.url, "unpaced", 20, 3)
    await measure(proxy.url, "unpaced", 20, 3)
    const rows: Row[] = []
    for (const workload of ["paced", "unpaced"] as const) {
      for (const concurrency of [1, 50, 200]) {
        const rounds = concurrency === 1 ? (workload === "paced" ? 20 : 200) : concurrency === 50 ? 6 : 3
        // One after the other, in the same minute, so both paths see the same machine load.
        const direct = await measure(upstream.url, workload, concurrency, rounds)
        const viaProxy = await measure(proxy.url, workload, concurrency, rounds)
        rows.push({ workload, concurrency, direct, proxy: viaProxy })
      }
    }
    const idleStreams = 200
    const idleDirect = await idleHeap(upstream.url, idleStreams)
    const idleProxy = await idleHeap(proxy.url, idleStreams)
    return { rows, idleBytes: idleProxy - idleDirect, idleStreams }
  } finally {
    await proxy.close()
    await upstream.close()
  }
}

const ms = (value: number) => value.toFixed(2)

export function formatProxyBench(result: Awaited<ReturnType<typeof benchProxy>>): string {
  const lines = [
    "# proxy",
    "",
    `Chat Completions streams of ${CONTENT.length} characters in ${Math.ceil(CONTENT.length / CHUNK)} deltas (paced: one every 2 ms; unpaced: as fast as the upstream writes), a tool offered (the detector runs on every delta), loopback, one process (client, proxy, replay upstream). Node ${process.versions.node}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the end of the run.`,
    "",
    "| upstream | concurrent streams | TTFB p50 direct / proxy (ms) | TTFB p99 direct / proxy (ms) | added p99 (ms) | throughput proxy / direct |",
    "|---|---:|---:|---:|---:|---:|",
  ]
  for (const row of result.rows) {
    lines.push(
      `| ${row.workload} | ${row.concurrency} | ${ms(row.direct.p50)} / ${ms(row.proxy.p50)} | ${ms(row.direct.p99)} / ${ms(row.proxy.p99)} | ${ms(row.proxy.p99 - row.direct.p99)} | ${((100 * row.proxy.throughput) / row.direct.throughput).toFixed(0)}% |`,
    )
  }
  lines.push(
    "",
    `Memory per idle stream through the proxy (heap after GC, ${result.idleStreams} streams held open mid-answer, proxy minus direct): ${(result.idleBytes / 1024).toFixed(1)} KB.`,
    "",
    "Targets (issue 15): added p99 TTFB ≤ 2 ms; throughput at 200 streams ≥ 90% of direct; memory per idle stream ≤ 16 KB. The client, the proxy and the upstream share one process and its cores, so at high concurrency the proxy's work competes with the client's and the upstream's; on a loaded machine compare the ratios.",
  )
  return lines.join("\n")
}

registerSuite({ name: "proxy", run: async () => formatProxyBench(await benchProxy()) })
