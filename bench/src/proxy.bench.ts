/**
 * The recovery proxy (`@tool-rescue/proxy`) beside direct upstream access, on loopback, in one
 * run. The proxy runs as users run it, in its own Node process (`startProxyServer`, what
 * `tool-rescue serve` starts); so does the upstream (`proxy/sse-upstream.ts`, a Chat Completions
 * SSE server that records when it wrote each delta), as a model server does; the client (`fetch`)
 * is the bench's process. Both paths have the same client and the same upstream and the
 * difference is the proxy. Every request offers a tool, so the proxy's detector runs on every delta (the recovered
 * path, not pass-through); the answer is clean prose.
 *
 * - `paced`: 4-character deltas (about a token) every 20 ms — 50 tokens a second per stream, the
 *   fast end of what a local model server gives each of 200 concurrent streams; the proxy must
 *   keep up and add no latency. `unpaced`: 12-character deltas as fast as the upstream can write,
 *   so the proxy's CPU cost per delta shows (no target: it measures cost, not what users see).
 * - Time to first byte one stream at a time (short answers, direct, the floor and the proxy in
 *   alternation: the latency the proxy adds, without queueing; the floor, a bare node:http server
 *   piping an undici request, is what any proxy in a process of its own adds at best), with the CPU
 *   time and young GCs per request of the floor's and the proxy's processes; then per stream, at 1, 50 and 200 streams started
 *   together: time to first byte; per delta: the time from the upstream's write to the
 *   client's read (direct: the loopback and the client; proxy: plus the proxy); throughput as
 *   content characters per second over the round.
 * - Memory per idle stream: the proxy process's heap after GC with N streams held open
 *   mid-answer, minus its heap with none, divided by N (and the same for requests without tools,
 *   which the proxy passes through: the cost of the HTTP hop alone).
 *
 * Issue 15's targets: added p99 TTFB ≤ 2 ms; throughput at 200 streams ≥ 90% of direct; memory
 * per idle stream ≤ 16 KB.
 */
import { type ChildProcess, fork } from "node:child_process"
import { cpus, loadavg } from "node:os"
import type { SseUpstream, Workload } from "./proxy/sse-upstream.ts"
import { median, registerSuite } from "./suite.ts"

const TOOLS = [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }]
const PACED: Workload = { kind: "paced", deltas: 50, size: 4, everyMs: 20 }
export const UNPACED: Workload = { kind: "unpaced", deltas: 174, size: 12, everyMs: 0 }
const IDLE: Workload = { kind: "idle", deltas: 2, size: 12, everyMs: 600_000 }

let streams = 0

export interface Sample {
  readonly ttfb: number
  readonly chars: number
  /** Per content delta: the client's read minus the upstream's write, in ms. */
  readonly lags: readonly number[]
}

function request(workload: Workload, id: string, tools: boolean, signal?: AbortSignal): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    ...(signal === undefined ? {} : { signal }),
    body: JSON.stringify({
      model: "bench",
      stream: true,
      user: id,
      metadata: { workload },
      messages: [{ role: "user", content: "Explain the parser." }],
      ...(tools ? { tools: TOOLS } : {}),
    }),
  }
}

/** Reads one stream, noting when each delta's last character arrived. */
export async function stream(upstream: SseUpstream, baseUrl: string, workload: Workload): Promise<Sample> {
  const id = `s${streams++}`
  const started = performance.now()
  const response = await fetch(`${baseUrl}/chat/completions`, request(workload, id, true))
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const arrived: number[] = []
  let ttfb = 0
  let buffer = ""
  let chars = 0
  for (;;) {
    const read = await reader.read()
    if (read.done) break
    const now = performance.now()
    if (ttfb === 0) ttfb = now - started
    buffer += decoder.decode(read.value, { stream: true })
    let end = buffer.indexOf("\n\n")
    while (end >= 0) {
      const frame = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      end = buffer.indexOf("\n\n")
      if (!frame.startsWith("data: {")) continue
      const content = (JSON.parse(frame.slice(6)) as { choices: { delta: { content?: string } }[] })
        .choices[0]?.delta.content
      if (content === undefined || content === "") continue
      chars += content.length
      // Epoch ms, the upstream process's clock for its write times.
      while (arrived.length < Math.floor(chars / workload.size)) arrived.push(performance.timeOrigin + now)
    }
  }
  const written = await upstream.writtenAt(id)
  return { ttfb, chars, lags: arrived.map((time, k) => time - written[k]!) }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

interface PathFigures {
  readonly ttfb50: number
  readonly ttfb99: number
  readonly lag50: number
  readonly lag99: number
  readonly throughput: number
}

interface Row {
  readonly workload: Workload["kind"]
  readonly concurrency: number
  readonly direct: PathFigures
  readonly proxy: PathFigures
}

async function measure(
  upstream: SseUpstream,
  url: string,
  workload: Workload,
  concurrency: number,
  rounds: number,
) {
  const ttfbs: number[] = []
  const lags: number[] = []
  const rates: number[] = []
  for (let r = 0; r < rounds; r++) {
    const started = performance.now()
    const samples = await Promise.all(
      Array.from({ length: concurrency }, () => stream(upstream, url, workload)),
    )
    const elapsed = (performance.now() - started) / 1000
    for (const s of samples) {
      ttfbs.push(s.ttfb)
      for (const lag of s.lags) lags.push(lag)
    }
    rates.push(samples.reduce((sum, s) => sum + s.chars, 0) / elapsed)
  }
  return {
    ttfb50: percentile(ttfbs, 50),
    ttfb99: percentile(ttfbs, 99),
    lag50: percentile(lags, 50),
    lag99: percentile(lags, 99),
    throughput: median(rates),
  }
}

/** A bench process started with `fork`: it says `{ type: "ready", url }`, then answers over IPC. */
interface BenchChild {
  readonly url: string
  /** Sends `message`; resolves with the next reply of `type` whose `key` field equals `key`. */
  ask<T>(message: { readonly type: string }, type: string, key?: string): Promise<T>
  close(): Promise<void>
}

async function startChild(file: string, args: string[], execArgv: string[]): Promise<BenchChild> {
  const child: ChildProcess = fork(new URL(file, import.meta.url), args, {
    execArgv: [...execArgv, "--conditions=@tool-rescue/source"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  })
  // Pending replies by type and key; one listener for all of them (200 streams ask at once).
  const pending = new Map<string, ((reply: unknown) => void)[]>()
  const wait = (slot: string) =>
    new Promise<unknown>((resolve) => {
      const queue = pending.get(slot) ?? []
      queue.push(resolve)
      pending.set(slot, queue)
    })
  child.on("message", (message: { type: string; id?: string }) => {
    const slot = `${message.type}:${message.id ?? ""}`
    const queue = pending.get(slot)
    queue?.shift()?.(message)
    if (queue?.length === 0) pending.delete(slot)
  })
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`bench: ${file} exited (${code})`))),
  )
  exited.catch(() => undefined)
  const { url } = (await Promise.race([wait("ready:"), exited])) as { url: string }
  return {
    url,
    ask: async <T>(message: { readonly type: string }, type: string, key = "") => {
      const reply = wait(`${type}:${key}`)
      child.send(message)
      return (await Promise.race([reply, exited])) as T
    },
    close: async () => {
      const gone = new Promise((resolve) => child.once("exit", resolve))
      child.send({ type: "close" })
      await gone
    },
  }
}

/** A server process's CPU time (µs) and young-generation GCs so far. */
export interface Cost {
  readonly cpu: number
  readonly youngGcs: number
}

export interface ProxyProcess {
  readonly url: string
  heap(): Promise<number>
  cost(): Promise<Cost>
  close(): Promise<void>
}

/** The proxy's process (`file`: or the floor's, `proxy/floor-process.ts`, a bare HTTP hop). */
export async function startProxyProcess(
  upstream: string,
  file = "./proxy/proxy-process.ts",
): Promise<ProxyProcess> {
  const child = await startChild(file, [upstream], ["--expose-gc"])
  return {
    url: child.url,
    heap: async () => (await child.ask<{ heapUsed: number }>({ type: "heap" }, "heap")).heapUsed,
    cost: () => child.ask<Cost>({ type: "cost" }, "cost"),
    close: () => child.close(),
  }
}

/** The upstream in a process of its own (`proxy/sse-upstream-process.ts`), as a model server is. */
export async function startUpstreamProcess(): Promise<SseUpstream> {
  const child = await startChild("./proxy/sse-upstream-process.ts", [], [])
  return {
    url: child.url,
    writtenAt: async (id) =>
      (await child.ask<{ times: number[] }>({ type: "written", id } as { type: string }, "written", id))
        .times,
    close: () => child.close(),
  }
}

/** The proxy's heap per stream held open mid-answer (`tools`: recovered; else passed through). */
async function idleHeap(proxy: ProxyProcess, count: number, tools: boolean): Promise<number> {
  const before = await proxy.heap()
  const controller = new AbortController()
  const readers = await Promise.all(
    Array.from({ length: count }, async () => {
      const response = await fetch(
        `${proxy.url}/chat/completions`,
        request(IDLE, `idle${streams++}`, tools, controller.signal),
      )
      const reader = response.body!.getReader()
      await reader.read()
      return reader
    }),
  )
  await new Promise((resolve) => setTimeout(resolve, 300))
  const after = await proxy.heap()
  controller.abort()
  await Promise.all(readers.map((r) => r.cancel().catch(() => undefined)))
  await new Promise((resolve) => setTimeout(resolve, 300))
  return (after - before) / count
}

/** Memory per idle stream, in bytes. */
interface IdleMemory {
  readonly idleStreams: number
  /** A tool offered: the stream is recovered (the detector runs). */
  readonly idleRecovered: number
  /** No tools: passed through (the proxy's HTTP hop). */
  readonly idlePassThrough: number
  /** A bare node:http server piping an undici request (`proxy/floor-process.ts`): the hop at best. */
  readonly idleFloor: number
}

/** The idle streams' memory of `proxy`, and of the floor beside it (started and closed here). */
async function idleMemory(upstream: SseUpstream, proxy: ProxyProcess): Promise<IdleMemory> {
  const idleStreams = 200
  // Once to warm the paths, then measured.
  await idleHeap(proxy, idleStreams, true)
  const idleRecovered = await idleHeap(proxy, idleStreams, true)
  const idlePassThrough = await idleHeap(proxy, idleStreams, false)
  const floor = await startProxyProcess(upstream.url, "./proxy/floor-process.ts")
  try {
    await idleHeap(floor, idleStreams, true)
    const idleFloor = await idleHeap(floor, idleStreams, true)
    return { idleStreams, idleRecovered, idlePassThrough, idleFloor }
  } finally {
    await floor.close()
  }
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1)

function formatIdleMemory(memory: IdleMemory): string {
  return `Memory per idle stream in the proxy process (heap after GC, ${memory.idleStreams} streams held open mid-answer, minus the heap with none): **${kb(memory.idleRecovered)} KB recovered**; ${kb(memory.idlePassThrough)} KB for a request without tools (passed through: the proxy's HTTP hop); ${kb(memory.idleFloor)} KB for a bare node:http server piping an undici request, measured the same way (the HTTP hop at best).`
}

/** Time to first byte of one stream at a time, direct and through the proxy in alternation. */
interface Percentiles {
  readonly p50: number
  readonly p99: number
}

/** A server's work per request over a round: CPU time (µs) and young GCs per 1000 requests. */
interface PerRequest {
  readonly cpu: number
  readonly youngGcsPer1000: number
}

interface Sequential {
  readonly requests: number
  readonly direct: Percentiles
  /** Through the floor (`proxy/floor-process.ts`): a bare HTTP hop, what any proxy adds at best. */
  readonly floor: Percentiles
  readonly proxy: Percentiles
  readonly floorCost: PerRequest
  readonly proxyCost: PerRequest
}

const FIRST_BYTE: Workload = { kind: "unpaced", deltas: 3, size: 4, everyMs: 0 }
/** Sequential requests each way before the measured ones. */
const WARM_UP = 1000
/** Measured rounds of sequential requests. */
const TTFB_ROUNDS = 5

function perRequest(before: Cost, after: Cost, requests: number): PerRequest {
  return {
    cpu: (after.cpu - before.cpu) / requests,
    youngGcsPer1000: (1000 * (after.youngGcs - before.youngGcs)) / requests,
  }
}

/**
 * `requests` streams through each path — direct, the floor, the proxy — one at a time, in
 * alternation: noise hits all three alike. The floor's and the proxy's processes report their
 * CPU time and young GCs around the round.
 */
async function sequentialTtfb(
  upstream: SseUpstream,
  floor: ProxyProcess,
  proxy: ProxyProcess,
  requests: number,
): Promise<Sequential> {
  const direct: number[] = []
  const viaFloor: number[] = []
  const viaProxy: number[] = []
  const [floorBefore, proxyBefore] = await Promise.all([floor.cost(), proxy.cost()])
  for (let i = 0; i < requests; i++) {
    direct.push((await stream(upstream, upstream.url, FIRST_BYTE)).ttfb)
    viaFloor.push((await stream(upstream, floor.url, FIRST_BYTE)).ttfb)
    viaProxy.push((await stream(upstream, proxy.url, FIRST_BYTE)).ttfb)
  }
  const [floorAfter, proxyAfter] = await Promise.all([floor.cost(), proxy.cost()])
  const figures = (values: number[]) => ({ p50: percentile(values, 50), p99: percentile(values, 99) })
  return {
    requests,
    direct: figures(direct),
    floor: figures(viaFloor),
    proxy: figures(viaProxy),
    floorCost: perRequest(floorBefore, floorAfter, requests),
    proxyCost: perRequest(proxyBefore, proxyAfter, requests),
  }
}

/**
 * The time-to-first-byte rounds: the floor is started beside the proxy for them only (its memory
 * is measured in fresh processes), warmed up with {@link WARM_UP} requests each way, then
 * {@link TTFB_ROUNDS} rounds of 500.
 */
async function ttfbRounds(upstream: SseUpstream, proxy: ProxyProcess): Promise<Sequential[]> {
  const floor = await startProxyProcess(upstream.url, "./proxy/floor-process.ts")
  try {
    await sequentialTtfb(upstream, floor, proxy, WARM_UP)
    // Rounds of 500 each way: one round's p99 is its 5th slowest request, so one scheduling
    // hiccup of this shared VM moves it by milliseconds; the report gives each round and their median.
    const sequential: Sequential[] = []
    for (let round = 0; round < TTFB_ROUNDS; round++)
      sequential.push(await sequentialTtfb(upstream, floor, proxy, 500))
    return sequential
  } finally {
    await floor.close()
  }
}

export interface ProxyBench {
  readonly sequential: readonly Sequential[]
  readonly rows: Row[]
  readonly memory: IdleMemory
}

/** Runs `part` against an upstream process and a proxy process of its own, closed after. */
async function withProcesses<T>(
  part: (upstream: SseUpstream, proxy: ProxyProcess) => Promise<T>,
): Promise<T> {
  const upstream = await startUpstreamProcess()
  const proxy = await startProxyProcess(upstream.url)
  try {
    return await part(upstream, proxy)
  } finally {
    await proxy.close()
    await upstream.close()
  }
}

/**
 * Warms up both paths (connection pools, and the JIT: a proxy serves for hours, so its steady
 * state is what users get; with only a few dozen requests before, the optimizing compiler's work
 * at fixed request counts landed inside the measured ones, as a tail of 10–30 ms).
 */
async function warmUp(upstream: SseUpstream, proxy: ProxyProcess): Promise<void> {
  for (const url of [upstream.url, proxy.url]) await measure(upstream, url, UNPACED, 20, 3)
}

export function benchProxy(): Promise<ProxyBench> {
  return withProcesses(async (upstream, proxy) => {
    await warmUp(upstream, proxy)
    const sequential = await ttfbRounds(upstream, proxy)
    const rows: Row[] = []
    const plan: [Workload, number, number][] = [
      [PACED, 1, 8],
      [PACED, 50, 3],
      [PACED, 200, 3],
      [UNPACED, 1, 200],
      [UNPACED, 50, 6],
      [UNPACED, 200, 3],
    ]
    for (const [workload, concurrency, rounds] of plan) {
      // One after the other, in the same minute, so both paths see the same machine load.
      const direct = await measure(upstream, upstream.url, workload, concurrency, rounds)
      const viaProxy = await measure(upstream, proxy.url, workload, concurrency, rounds)
      rows.push({ workload: workload.kind, concurrency, direct, proxy: viaProxy })
    }
    return { sequential, rows, memory: await idleMemory(upstream, proxy) }
  })
}

const ms = (value: number) => value.toFixed(2)

/** The sequential rounds: the median round's figures (by added p99), and every round's added p99. */
function ttfbLine(rounds: readonly Sequential[]): string {
  const added = (r: Sequential) => r.proxy.p99 - r.direct.p99
  const floorAdded = (r: Sequential) => r.floor.p99 - r.direct.p99
  const sorted = [...rounds].sort((a, b) => added(a) - added(b))
  const mid = sorted[Math.floor(sorted.length / 2)]!
  const cost = (pick: (r: Sequential) => PerRequest) => {
    const costs = rounds.map(pick)
    return `${median(costs.map((c) => c.cpu)).toFixed(0)} µs of CPU and ${median(costs.map((c) => c.youngGcsPer1000)).toFixed(1)} young GCs per 1000 requests`
  }
  return [
    `Time to first byte, one stream at a time (${rounds.length} rounds of ${mid.requests} requests each way — direct, through the floor, through the proxy — in alternation, after ${WARM_UP} each way to warm up). Median round: p50 ${ms(mid.direct.p50)} ms direct / ${ms(mid.proxy.p50)} ms through the proxy; p99 ${ms(mid.direct.p99)} / ${ms(mid.proxy.p99)} ms — **added p99 ${ms(added(mid))} ms** (added p50 ${ms(mid.proxy.p50 - mid.direct.p50)} ms). Added p99 of each round: ${rounds.map((r) => ms(added(r))).join(", ")} ms.`,
    "",
    `The floor — a bare node:http server piping an undici request (\`proxy/floor-process.ts\`), the HTTP hop any proxy in its own process adds at best — in the same rounds: added p99 ${ms(median(rounds.map(floorAdded)))} ms (median round; each round: ${rounds.map((r) => ms(floorAdded(r))).join(", ")} ms), added p50 ${ms(median(rounds.map((r) => r.floor.p50 - r.direct.p50)))} ms. Work per request in each server's process (median round): the proxy ${cost((r) => r.proxyCost)}; the floor ${cost((r) => r.floorCost)}.`,
  ].join("\n")
}

export function formatProxyBench(result: ProxyBench): string {
  const lines = [
    "# proxy",
    "",
    `Chat Completions streams through \`startProxyServer\` in its own process, beside the same client reading the same upstream directly; a tool offered (the detector runs on every delta), clean prose. paced: ${PACED.deltas} deltas of ${PACED.size} characters, one every ${PACED.everyMs} ms (50 tokens/s per stream); unpaced: ${UNPACED.deltas} deltas of ${UNPACED.size} characters as fast as the upstream writes (CPU cost). Delta latency: the upstream's write to the client's read. Node ${process.versions.node}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the end of the run.`,
    "",
    ttfbLine(result.sequential),
    "",
    "| upstream | streams | TTFB p50 direct / proxy (ms) | TTFB p99 direct / proxy (ms) | added TTFB p99 (ms) | delta latency p50 direct / proxy (ms) | delta latency p99 direct / proxy (ms) | throughput proxy / direct |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ]
  for (const row of result.rows) {
    const { direct: d, proxy: p } = row
    lines.push(
      `| ${row.workload} | ${row.concurrency} | ${ms(d.ttfb50)} / ${ms(p.ttfb50)} | ${ms(d.ttfb99)} / ${ms(p.ttfb99)} | ${ms(p.ttfb99 - d.ttfb99)} | ${ms(d.lag50)} / ${ms(p.lag50)} | ${ms(d.lag99)} / ${ms(p.lag99)} | ${((100 * p.throughput) / d.throughput).toFixed(0)}% |`,
    )
  }
  lines.push(
    "",
    formatIdleMemory(result.memory),
    "",
    "Targets (issue 15): added p99 TTFB ≤ 2 ms (one stream at a time, above: in the table, streams start together, so their TTFB is queueing); throughput ≥ 90% of direct at 200 streams (paced: what users see); memory per idle stream ≤ 16 KB. The unpaced rows measure the proxy's CPU cost per delta on this machine (the client's, the proxy's and the upstream's processes share its cores).",
  )
  return lines.join("\n")
}

registerSuite({ name: "proxy", run: async () => formatProxyBench(await benchProxy()) })

/** The time-to-first-byte rounds alone (`src/run.ts proxy-ttfb`), after the same warm-up. */
registerSuite({
  name: "proxy-ttfb",
  run: () =>
    withProcesses(async (upstream, proxy) => {
      await warmUp(upstream, proxy)
      const rounds = await ttfbRounds(upstream, proxy)
      return `# proxy-ttfb\n\nThe time-to-first-byte part of the \`proxy\` suite, run alone. Node ${process.versions.node}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the end of the run.\n\n${ttfbLine(rounds)}`
    }),
})

/** The memory part alone (`src/run.ts proxy-memory`): fresh processes, no latency rounds before. */
registerSuite({
  name: "proxy-memory",
  run: () =>
    withProcesses(
      async (upstream, proxy) =>
        `# proxy-memory\n\nThe memory part of the \`proxy\` suite, run alone. Node ${process.versions.node}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}.\n\n${formatIdleMemory(await idleMemory(upstream, proxy))}`,
    ),
})
