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
 *
 * Options (environment): `BENCH_PROXY_BEFORE=<commit>` runs that commit's proxy beside today's in
 * the time-to-first-byte rounds and reports the difference (see {@link BEFORE_ENV}: a change
 * smaller than a run's spread shows, over several runs); `BENCH_TTFB_SAMPLES=<file>` writes
 * every sample of those rounds; `BENCH_PROXY_NODE_FLAGS` (and `BENCH_FLOOR_TOO=1` for the floor's
 * process) passes Node flags: `--cpu-prof`, or `--import <abs path>/proxy/ttfb-trace.ts` for
 * each step's median.
 */
import { type ChildProcess, fork } from "node:child_process"
import { writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { buildFromGit } from "./build-from-git.ts"
import type { SseUpstream, Workload } from "./proxy/sse-upstream.ts"
import type { Cell, Sample as ClientSample, ProtocolName } from "./proxy/ttfb-client-process.ts"
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
    execArgv,
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

/**
 * The proxy's process (`file`: or the floor's, `proxy/floor-process.ts`, a bare HTTP hop). The
 * proxy's takes Node flags from `BENCH_PROXY_NODE_FLAGS` besides (`--cpu-prof`, to profile it
 * under the bench's load).
 */
export async function startProxyProcess(
  upstream: string,
  file = "./proxy/proxy-process.ts",
  module?: string,
): Promise<ProxyProcess> {
  const flags =
    process.env.BENCH_FLOOR_TOO || file === "./proxy/proxy-process.ts"
      ? (process.env.BENCH_PROXY_NODE_FLAGS ?? "")
      : ""
  const args = module === undefined ? [upstream] : [upstream, module]
  const child = await startChild(file, args, ["--expose-gc", ...flags.split(" ").filter(Boolean)])
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

/** A server's work per request over the matrix: CPU time (µs) and young GCs per 1000 requests. */
interface PerRequest {
  readonly cpu: number
  readonly youngGcsPer1000: number
}

function perRequest(before: Cost, after: Cost, requests: number): PerRequest {
  return {
    cpu: (after.cpu - before.cpu) / requests,
    youngGcsPer1000: (1000 * (after.youngGcs - before.youngGcs)) / requests,
  }
}

const PROTOCOLS: readonly ProtocolName[] = ["chat", "responses", "messages"]
/** A short answer: the first text delta right after the headers, then one every 2 ms. */
const FIRST_BYTE: Workload = { kind: "paced", deltas: 8, size: 4, everyMs: 2 }
/** Requests per path of each protocol, on kept-alive connections, before the measured ones. */
const WARM_UP = 150
/** Requests per path and cell in a round (the audit's 40), and the rounds. */
const CELL_REQUESTS = 40
const TTFB_ROUNDS = 5

/** One cell's figures per path: p50 and p90 of headers and first text delta, p50 of later deltas' lag. */
interface PathTtfb {
  readonly headers50: number
  readonly headers90: number
  readonly text50: number
  readonly text90: number
  readonly lag50: number
}

interface TtfbCell {
  readonly protocol: ProtocolName
  readonly fresh: boolean
  readonly direct: PathTtfb
  readonly floor: PathTtfb
  readonly proxy: PathTtfb
  /** An older commit's proxy ({@link BEFORE_ENV}), in the same rounds. */
  readonly before?: PathTtfb
  /** Today's proxy minus the older one, request by request (each pair in the same moment). */
  readonly paired?: Paired
}

/** Per-request differences of two paths' samples taken side by side (ms). */
interface Paired {
  readonly headers: readonly number[]
  readonly text: readonly number[]
}

function paired(a: readonly ClientSample[], b: readonly ClientSample[]): Paired {
  return {
    headers: a.map((s, j) => s.headers - b[j]!.headers),
    text: a.map((s, j) => s.firstText - b[j]!.firstText),
  }
}

export interface TtfbMatrix {
  readonly cells: readonly TtfbCell[]
  readonly requests: number
  readonly floorCost: PerRequest
  readonly proxyCost: PerRequest
  /** The older commit's proxy, when one ran beside today's ({@link BEFORE_ENV}). */
  readonly before?: { readonly commit: string; readonly cost: PerRequest }
}

/**
 * A commit (`BENCH_PROXY_BEFORE=b86d2d9`): its proxy, built from git with the `recovery`, `wire`
 * and `detector` of the same commit, runs as a fourth path of the time-to-first-byte rounds, so
 * a run says what today's sources changed directly, both in the same rounds (a change smaller
 * than what one run moves a cell by still shows).
 */
const BEFORE_ENV = "BENCH_PROXY_BEFORE"

/** The older proxy's process, when {@link BEFORE_ENV} names a commit. */
async function startBefore(
  upstream: SseUpstream,
): Promise<{ commit: string; process: ProxyProcess } | undefined> {
  const commit = process.env[BEFORE_ENV]
  if (commit === undefined || commit === "") return undefined
  const module = await buildFromGit("proxy", commit, {
    entry: "node.ts",
    workspace: ["recovery", "wire", "detector"],
  })
  const older = await startProxyProcess(upstream.url, "./proxy/proxy-process.ts", module)
  // The same warm-up as today's proxy ({@link warmUp}).
  await measure(upstream, older.url, UNPACED, 20, 3)
  return { commit, process: older }
}

function pathTtfb(samples: readonly ClientSample[]): PathTtfb {
  const headers = samples.map((s) => s.headers)
  const text = samples.map((s) => s.firstText)
  return {
    headers50: percentile(headers, 50),
    headers90: percentile(headers, 90),
    text50: percentile(text, 50),
    text90: percentile(text, 90),
    lag50: percentile(
      samples.flatMap((s) => s.lags),
      50,
    ),
  }
}

/**
 * The audit's matrix: each protocol, streaming with tools, on fresh and kept-alive connections,
 * from a client in its own process (`proxy/ttfb-client-process.ts`): direct, through the floor and
 * through the proxy in alternation, request by request. {@link WARM_UP} requests per protocol and
 * path first, then {@link TTFB_ROUNDS} rounds of {@link CELL_REQUESTS} per cell and path, pooled.
 * The floor is started beside the proxy for them only (its memory is measured in fresh processes).
 */
async function ttfbMatrix(upstream: SseUpstream, proxy: ProxyProcess): Promise<TtfbMatrix> {
  const floor = await startProxyProcess(upstream.url, "./proxy/floor-process.ts")
  const before = await startBefore(upstream)
  const client = await startChild("./proxy/ttfb-client-process.ts", [upstream.url], [])
  const urls = [upstream.url, floor.url, proxy.url, ...(before === undefined ? [] : [before.process.url])]
  const cell = (protocol: ProtocolName, fresh: boolean, requests: number, workload = FIRST_BYTE) => {
    const message: Cell = { type: "cell", protocol, fresh, urls, requests, workload }
    return client.ask<{ samples: ClientSample[][] }>(message, "cell")
  }
  try {
    for (const protocol of PROTOCOLS) await cell(protocol, false, WARM_UP, UNPACED_SHORT)
    const pooled = new Map<string, ClientSample[][]>()
    const [floorBefore, proxyBefore, olderBefore] = await Promise.all([
      floor.cost(),
      proxy.cost(),
      before?.process.cost(),
    ])
    for (let round = 0; round < TTFB_ROUNDS; round++) {
      await endTurn(proxy.url)
      if (before !== undefined) await endTurn(before.process.url)
      for (const protocol of PROTOCOLS)
        for (const fresh of [false, true]) {
          const { samples } = await cell(protocol, fresh, CELL_REQUESTS)
          const key = `${protocol} ${fresh}`
          const sofar = pooled.get(key) ?? urls.map(() => [])
          for (const [path, list] of samples.entries()) sofar[path]!.push(...list)
          pooled.set(key, sofar)
        }
    }
    const [floorAfter, proxyAfter, olderAfter] = await Promise.all([
      floor.cost(),
      proxy.cost(),
      before?.process.cost(),
    ])
    const requests = TTFB_ROUNDS * PROTOCOLS.length * 2 * CELL_REQUESTS
    // Every sample, for a reader pooling several runs (`BENCH_TTFB_SAMPLES=file.json`).
    const samplesFile = process.env.BENCH_TTFB_SAMPLES
    if (samplesFile) writeFileSync(samplesFile, JSON.stringify(Object.fromEntries(pooled)))
    const cells = [...pooled].map(([key, [direct, viaFloor, viaProxy, viaBefore]]) => {
      const [protocol, fresh] = key.split(" ")
      return {
        protocol: protocol as ProtocolName,
        fresh: fresh === "true",
        direct: pathTtfb(direct!),
        floor: pathTtfb(viaFloor!),
        proxy: pathTtfb(viaProxy!),
        ...(viaBefore === undefined
          ? {}
          : { before: pathTtfb(viaBefore), paired: paired(viaProxy!, viaBefore) }),
      }
    })
    return {
      cells,
      requests: TTFB_ROUNDS * CELL_REQUESTS,
      floorCost: perRequest(floorBefore, floorAfter, requests),
      proxyCost: perRequest(proxyBefore, proxyAfter, requests),
      ...(before === undefined
        ? {}
        : { before: { commit: before.commit, cost: perRequest(olderBefore!, olderAfter!, requests) } }),
    }
  } finally {
    await client.close()
    await floor.close()
    await before?.process.close()
  }
}

/**
 * A turn the proxy ends (a tool call written as text, retried, written again): its memory of
 * ended turns then holds one for a minute, as a proxy's does after any turn it failed lately.
 */
async function endTurn(proxyUrl: string): Promise<void> {
  const leak: Workload = { kind: "leak", deltas: 1, size: 0, everyMs: 0 }
  const init = request(leak, `ended${streams++}`, true)
  // Another conversation than the measured requests' (an identical one would be its resend).
  const body = String(init.body).replace("Explain the parser.", "Show me a.ts.")
  const response = await fetch(`${proxyUrl}/chat/completions`, { ...init, body })
  const text = await response.text()
  if (!text.includes("repeated-markup")) throw new Error(`bench: the proxy did not end the turn: ${text}`)
}

/** The warm-up's answers: a few deltas as fast as the upstream writes. */
const UNPACED_SHORT: Workload = { kind: "unpaced", deltas: 3, size: 4, everyMs: 0 }

export interface ProxyBench {
  readonly ttfb: TtfbMatrix
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
    const ttfb = await ttfbMatrix(upstream, proxy)
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
    return { ttfb, rows, memory: await idleMemory(upstream, proxy) }
  })
}

const ms = (value: number) => value.toFixed(2)

const added = (path: PathTtfb, direct: PathTtfb, pick: (p: PathTtfb) => number) =>
  ms(pick(path) - pick(direct))

/** The matrix as a table: per cell, p50 of each path and what the floor and the proxy add. */
function ttfbTable(matrix: TtfbMatrix): string {
  const cost = (c: PerRequest) =>
    `${c.cpu.toFixed(0)} µs of CPU and ${c.youngGcsPer1000.toFixed(1)} young GCs per 1000 requests`
  const lines = [
    `Time to first byte from a client in its own process (node:http, \`proxy/ttfb-client-process.ts\`), streaming, three tools in every request (the recovered path), on a fresh connection per request or one kept alive: direct, through the floor and through the proxy in alternation, request by request, each first in turn; ${WARM_UP} requests per protocol and path to warm up, then ${TTFB_ROUNDS} rounds of ${CELL_REQUESTS} per cell and path (${matrix.requests} pooled). Each round starts with a turn the proxy ends (a tool call written as text twice: its memory of ended turns then holds one, as after any turn it failed in the last minute). The upstream writes its headers with the stream's opening events, the first text delta on its event loop's next turn, then a ${FIRST_BYTE.size}-character delta every ${FIRST_BYTE.everyMs} ms (${FIRST_BYTE.deltas} in all). The floor is a bare node:http server piping an undici request (\`proxy/floor-process.ts\`): the hop any proxy in its own process adds at best. *Added* is the path's p50 minus direct's p50; per delta, the p50 of every later delta's lag (the client's read minus the upstream's write) minus direct's.`,
    "",
    "| protocol | connection | headers p50 direct (ms) | headers added floor / proxy (ms) | first text p50 direct (ms) | first text added floor / proxy (ms) | first text p90 floor / proxy (ms) | later delta added floor / proxy (ms) |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
  ]
  for (const { protocol, fresh, direct: d, floor: f, proxy: p } of matrix.cells)
    lines.push(
      `| ${protocol} | ${fresh ? "fresh" : "kept alive"} | ${ms(d.headers50)} | ${added(f, d, (x) => x.headers50)} / ${added(p, d, (x) => x.headers50)} | ${ms(d.text50)} | ${added(f, d, (x) => x.text50)} / ${added(p, d, (x) => x.text50)} | ${ms(f.text90)} / ${ms(p.text90)} | ${added(f, d, (x) => x.lag50)} / ${added(p, d, (x) => x.lag50)} |`,
    )
  lines.push(
    "",
    `Work per request in each server's process over the measured rounds: the proxy ${cost(matrix.proxyCost)}; the floor ${cost(matrix.floorCost)}.`,
  )
  if (matrix.before !== undefined)
    lines.push(
      "",
      beforeTable(matrix, matrix.before.commit),
      "",
      `The proxy of ${matrix.before.commit}: ${cost(matrix.before.cost)}.`,
    )
  return lines.join("\n")
}

/** Today's proxy against the older commit's, in the same rounds: p50 differences per cell. */
function beforeTable(matrix: TtfbMatrix, commit: string): string {
  const lines = [
    `Today's proxy minus the proxy of ${commit} (built from git, a fourth path in the same rounds; negative: today's is faster): the difference of the p50s, and the median of the differences request by request (today's and the older proxy's requests of one alternation, taken within milliseconds of each other, so a burst of load hits both).`,
    "",
    "| protocol | connection | headers p50 (ms) | first text p50 (ms) | first text p90 (ms) | later delta p50 (ms) | headers, paired (ms) | first text, paired (ms) |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
  ]
  const all: Paired = { headers: [], text: [] }
  for (const { protocol, fresh, proxy: p, before: b, paired: d } of matrix.cells) {
    if (b === undefined || d === undefined) continue
    ;(all.headers as number[]).push(...d.headers)
    ;(all.text as number[]).push(...d.text)
    lines.push(
      `| ${protocol} | ${fresh ? "fresh" : "kept alive"} | ${ms(p.headers50 - b.headers50)} | ${ms(p.text50 - b.text50)} | ${ms(p.text90 - b.text90)} | ${ms(p.lag50 - b.lag50)} | ${ms(percentile(d.headers, 50))} | ${ms(percentile(d.text, 50))} |`,
    )
  }
  lines.push(`| all | both | | | | | ${ms(percentile(all.headers, 50))} | ${ms(percentile(all.text, 50))} |`)
  return lines.join("\n")
}

export function formatProxyBench(result: ProxyBench): string {
  const lines = [
    "# proxy",
    "",
    `Chat Completions streams through \`startProxyServer\` in its own process, beside the same client reading the same upstream directly; a tool offered (the detector runs on every delta), clean prose. paced: ${PACED.deltas} deltas of ${PACED.size} characters, one every ${PACED.everyMs} ms (50 tokens/s per stream); unpaced: ${UNPACED.deltas} deltas of ${UNPACED.size} characters as fast as the upstream writes (CPU cost). Delta latency: the upstream's write to the client's read. Node ${process.versions.node}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the end of the run.`,
    "",
    ttfbTable(result.ttfb),
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
      const matrix = await ttfbMatrix(upstream, proxy)
      return `# proxy-ttfb\n\nThe time-to-first-byte part of the \`proxy\` suite, run alone. Node ${process.versions.node}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the end of the run.\n\n${ttfbTable(matrix)}`
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
