/**
 * Issue 24's rule for `runTurn`: it stays an async generator unless a benchmark a user would
 * notice — the proxy's CPU per 1,000 streamed chunks, or its throughput at 200 unpaced streams —
 * shows a difference of at least 10% against the hand-written class it replaced, measured side
 * by side in one run.
 *
 * Two proxy processes over one upstream process, as the `proxy` suite runs them: one with today's
 * recovery (the generator), one with the class-based turn of commit 6efbb86 in its place
 * (`proxy/class-turn-build.ts` builds it from git, `proxy/class-turn-process.ts` maps it in; the
 * rest of the proxy, the detector and the wire mapping are the same code). Each round streams 200
 * unpaced Chat Completions streams (a tool offered, clean prose: every chunk goes through the
 * turn) through one proxy, then through the other (the order alternates between rounds), and
 * reads each proxy process's CPU time around its half. Per round: CPU time per 1,000 chunks the
 * client read, and throughput (content characters per second); the figures are the per-round
 * ratios generator ÷ class and their median.
 *
 * Beside it, in the bench's own process, `runTurn` alone: the same 10,000-delta clean stream
 * through each turn, interleaved, CPU time per 1,000 chunks (the paired difference is what the
 * generator adds over the class, with none of the proxy's HTTP and SSE work around it).
 */
import { cpus, loadavg } from "node:os"
import { type NormalizedPart, type OutputPart, recoverToolCalls } from "@tool-rescue/recovery"
import { buildClassTurn, CLASS_TURN_COMMIT } from "./proxy/class-turn-build.ts"
import type { SseUpstream } from "./proxy/sse-upstream.ts"
import {
  type Cost,
  type ProxyProcess,
  startProxyProcess,
  startUpstreamProcess,
  stream,
  UNPACED,
} from "./proxy.bench.ts"
import { median, registerSuite } from "./suite.ts"

const STREAMS = 200
const ROUNDS = 16
const WARM_ROUNDS = 3

/** One proxy's half of a round. */
interface Half {
  /** The proxy process's CPU time per 1,000 chunks read by the client (µs). */
  readonly cpuPer1000: number
  /** Content characters per second over the half. */
  readonly throughput: number
}

interface Round {
  readonly generator: Half
  readonly classTurn: Half
}

async function half(upstream: SseUpstream, proxy: ProxyProcess): Promise<Half> {
  const before: Cost = await proxy.cost()
  const started = performance.now()
  const samples = await Promise.all(
    Array.from({ length: STREAMS }, () => stream(upstream, proxy.url, UNPACED)),
  )
  const elapsed = (performance.now() - started) / 1000
  const after: Cost = await proxy.cost()
  const chars = samples.reduce((sum, s) => sum + s.chars, 0)
  const chunks = chars / UNPACED.size
  if (chunks !== STREAMS * UNPACED.deltas)
    throw new Error(`bench: ${chunks} chunks read, not ${STREAMS * UNPACED.deltas}`)
  return { cpuPer1000: (after.cpu - before.cpu) / (chunks / 1000), throughput: chars / elapsed }
}

type Part = NormalizedPart<string>
type ClassRunTurn = (input: {
  readonly tools: readonly string[]
  readonly attempt: () => AsyncIterable<Part>
}) => AsyncIterable<OutputPart<string>>

const DELTAS = 10_000
const TRIALS = 40

async function* replay(parts: readonly Part[]): AsyncGenerator<Part> {
  for (const part of parts) yield part
}

/** CPU time (µs) of one turn over `parts`. */
async function cpuOf(turn: AsyncIterable<OutputPart<string>>): Promise<number> {
  const before = process.cpuUsage()
  let n = 0
  for await (const part of turn) if (part.type === "text") n += part.text.length
  const { user, system } = process.cpuUsage(before)
  if (n === 0) throw new Error("bench: nothing streamed")
  return user + system
}

/** `runTurn` alone: CPU per 1,000 chunks, generator and class, and their paired ratio. */
interface InProcess {
  readonly generator: number
  readonly classTurn: number
  readonly added: number
  readonly ratio: number
}

async function inProcess(classRunTurn: ClassRunTurn): Promise<InProcess> {
  const words = ["the ", "parser ", "keeps ", "a < b ", "small ", "state ", "`x` ", "machine "]
  const parts: Part[] = Array.from({ length: DELTAS }, (_, i) => ({
    type: "text",
    text: words[i % 8]!,
    id: "t",
  }))
  parts.push({ type: "finish", raw: "stop" })
  const tools = ["read_file"]
  const runs = [
    () => cpuOf(recoverToolCalls<string>({ tools, attempt: () => replay(parts) })),
    () => cpuOf(classRunTurn({ tools, attempt: () => replay(parts) })),
  ]
  for (let i = 0; i < 10; i++) for (const run of runs) await run()
  const times: [number[], number[]] = [[], []]
  for (let i = 0; i < TRIALS; i++)
    for (let k = 0; k < 2; k++) {
      const which = (i + k) % 2
      times[which]!.push(await runs[which]!())
    }
  const per1000 = (us: number) => (us * 1000) / DELTAS
  return {
    generator: per1000(median(times[0])),
    classTurn: per1000(median(times[1])),
    added: per1000(median(times[0].map((t, i) => t - times[1][i]!))),
    ratio: median(times[0].map((t, i) => t / times[1][i]!)),
  }
}

export interface ProxyTurnBench {
  readonly inProcess: InProcess
  readonly rounds: readonly Round[]
  readonly loadBefore: number
  readonly loadAfter: number
}

export async function benchProxyTurn(): Promise<ProxyTurnBench> {
  const loadBefore = loadavg()[0]!
  const bundle = await buildClassTurn()
  process.env.TOOL_RESCUE_BENCH_CLASS_TURN = bundle
  const alone = await inProcess(((await import(bundle)) as { readonly runTurn: ClassRunTurn }).runTurn)
  const upstream = await startUpstreamProcess()
  const generator = await startProxyProcess(upstream.url)
  const classTurn = await startProxyProcess(upstream.url, "./proxy/class-turn-process.ts")
  try {
    // The JIT's steady state, as a proxy serving for hours has it.
    for (let r = 0; r < WARM_ROUNDS; r++) {
      await half(upstream, generator)
      await half(upstream, classTurn)
    }
    const rounds: Round[] = []
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating order: a neighbour's load, or the upstream's state, hits both alike.
      if (r % 2 === 0) {
        const g = await half(upstream, generator)
        rounds.push({ generator: g, classTurn: await half(upstream, classTurn) })
      } else {
        const c = await half(upstream, classTurn)
        rounds.push({ generator: await half(upstream, generator), classTurn: c })
      }
    }
    return { inProcess: alone, rounds, loadBefore, loadAfter: loadavg()[0]! }
  } finally {
    await generator.close()
    await classTurn.close()
    await upstream.close()
  }
}

const pct = (ratio: number) => `${ratio >= 1 ? "+" : "−"}${(Math.abs(ratio - 1) * 100).toFixed(1)}%`

export function formatProxyTurnBench(result: ProxyTurnBench): string {
  const cpuRatios = result.rounds.map((r) => r.generator.cpuPer1000 / r.classTurn.cpuPer1000)
  const rateRatios = result.rounds.map((r) => r.generator.throughput / r.classTurn.throughput)
  const cpu = median(cpuRatios)
  const rate = median(rateRatios)
  // The rule asks whether the generator costs users 10% more: more CPU per chunk, or less throughput.
  const noticed = cpu >= 1.1 || rate <= 1 / 1.1
  const quartiles = (values: readonly number[]) => {
    const sorted = [...values].sort((a, b) => a - b)
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
    return `${at(0.25).toFixed(3)}–${at(0.75).toFixed(3)}`
  }
  const lines = [
    "# proxy-turn",
    "",
    `The proxy's recovered streaming path with \`runTurn\` as an async generator (today) beside the class-based turn of commit ${CLASS_TURN_COMMIT}, in one run: two proxy processes over one upstream process, ${ROUNDS} rounds after ${WARM_ROUNDS} to warm up, each round ${STREAMS} unpaced Chat Completions streams (${UNPACED.deltas} deltas of ${UNPACED.size} characters, a tool offered, clean prose) through one proxy then the other, the order alternating. CPU: the proxy process's CPU time (user + system) over its half of the round, per 1,000 chunks the client read. Node ${process.versions.node}, ${cpus().length} cores (shared), load average ${result.loadBefore.toFixed(1)} when the run began, ${result.loadAfter.toFixed(1)} when it ended.`,
    "",
    "| round | CPU per 1,000 chunks, generator / class (ms) | generator ÷ class | throughput, generator / class (K chars/s) | generator ÷ class |",
    "|---:|---:|---:|---:|---:|",
  ]
  result.rounds.forEach((r, k) => {
    lines.push(
      `| ${k + 1} | ${(r.generator.cpuPer1000 / 1000).toFixed(2)} / ${(r.classTurn.cpuPer1000 / 1000).toFixed(2)} | ${cpuRatios[k]!.toFixed(3)} | ${(r.generator.throughput / 1000).toFixed(0)} / ${(r.classTurn.throughput / 1000).toFixed(0)} | ${rateRatios[k]!.toFixed(3)} |`,
    )
  })
  lines.push(
    `| **median** | ${(median(result.rounds.map((r) => r.generator.cpuPer1000)) / 1000).toFixed(2)} / ${(median(result.rounds.map((r) => r.classTurn.cpuPer1000)) / 1000).toFixed(2)} | **${cpu.toFixed(3)}** | ${(median(result.rounds.map((r) => r.generator.throughput)) / 1000).toFixed(0)} / ${(median(result.rounds.map((r) => r.classTurn.throughput)) / 1000).toFixed(0)} | **${rate.toFixed(3)}** |`,
    "",
    `The generator's CPU per 1,000 chunks: ${pct(cpu)} against the class (median of the rounds' ratios; middle half of the rounds ${quartiles(cpuRatios)}); its throughput at ${STREAMS} unpaced streams: ${pct(rate)} (middle half ${quartiles(rateRatios)}). Issue 24's rule: the generator goes only if it is at least 10% worse on either (≥ 1.100 CPU, ≤ 0.909 throughput) — ${noticed ? "**reached**: the generator costs users something they would notice." : "**not reached**: the generator stays."}`,
  )
  const a = result.inProcess
  lines.push(
    "",
    `\`runTurn\` alone, in the bench's process (${DELTAS.toLocaleString("en")} clean text deltas through each turn, ${TRIALS} interleaved trials after 10 to warm up; CPU time per 1,000 chunks, medians): the generator ${a.generator.toFixed(0)} µs, the class ${a.classTurn.toFixed(0)} µs — the generator adds ${a.added.toFixed(0)} µs per 1,000 chunks (median of paired differences; ratio ${a.ratio.toFixed(2)}×), against the proxy's ${(median(result.rounds.map((r) => r.generator.cpuPer1000)) / 1000).toFixed(1)} ms per 1,000 chunks above (${((100 * a.added) / median(result.rounds.map((r) => r.generator.cpuPer1000))).toFixed(1)}% of it).`,
  )
  return lines.join("\n")
}

registerSuite({ name: "proxy-turn", run: async () => formatProxyTurnBench(await benchProxyTurn()) })
