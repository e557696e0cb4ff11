/**
 * Cost per delta of `runTurn` (`@tool-rescue/recovery`) against a pass-through of the same part
 * stream, in one run, next to the detector's own cost per delta. Target (issue 5): the
 * middleware adds at most 2× the detector's own cost per delta, i.e.
 * (runTurn − pass-through) ≤ 2 × detector, with the detector's cost measured in the same
 * streaming setting (see `detecting`); its synchronous-loop cost is printed too.
 *
 * Two workloads of 10,000 text deltas with an offered tool:
 * - `clean`: prose holding `<`, `[` and `{` (hold-back paths), no markup;
 * - `withheld`: the same prose with a leaked call to a tool that is not offered every 500
 *   deltas (detected and withheld, never retried), so the queue and markup paths run too.
 *
 * Runs alone with `node bench/src/recovery.bench.ts` (built packages), or from `run.ts`.
 */
import { createDetector } from "@tool-rescue/detector"
import { type NormalizedPart, recoverToolCalls } from "@tool-rescue/recovery"
import { median, registerSuite } from "./suite.ts"

/** One measured comparison. */
export interface RecoveryBenchResult {
  readonly name: string
  readonly deltas: number
  readonly iterations: number
  /** Median microseconds per delta of each variant. `providerMicros`: iterating the provider alone. */
  readonly providerMicros: number
  readonly passThroughMicros: number
  /** The detector in a synchronous loop (its floor). */
  readonly detectorLoopMicros: number
  /** The detector's cost in a stream: (pass-through + detector) − pass-through, paired per trial. */
  readonly detectorMicros: number
  readonly runTurnMicros: number
  /** Median of the paired per-trial differences runTurn − pass-through, per delta. */
  readonly addedMicros: number
  /** addedMicros / detectorMicros: the target is ≤ 2. */
  readonly addedOverDetector: number
}

const WORDS = [
  "the ",
  "model ",
  "streams ",
  "a < b ",
  "and ",
  "prose [1] ",
  "with ",
  "code: {x} ",
  "tokens ",
  "here.\n",
]
const LEAK = ['<tool_call>\n{"name": "launch', '_rockets", "arguments": ', '{"when": "now"}}\n</tool_call>']
const TOOLS = ["read_file", "bash"]

type Part = NormalizedPart<string>

function script(deltas: number, leaks: boolean): Part[] {
  const parts: Part[] = [{ type: "other", raw: "start" }]
  for (let i = 0; i < deltas; i++) {
    if (leaks && i % 500 === 499) {
      for (const piece of LEAK) parts.push({ type: "text", text: piece, id: "t" })
      i += LEAK.length - 1
      continue
    }
    parts.push({ type: "text", text: WORDS[i % WORDS.length]!, id: "t" })
  }
  parts.push({ type: "finish", raw: "stop" })
  return parts
}

async function* replay(parts: readonly Part[]): AsyncGenerator<Part> {
  for (const part of parts) yield part
}

/**
 * The pass-through: a do-nothing middleware over the same attempt, i.e. an identity async
 * generator with the same `attempt` call and the same part stream. That is the floor of any
 * middleware with runTurn's shape (one more async-generator layer between provider and
 * consumer), so the difference to it is what runTurn's own work costs.
 */
async function* identity(attempt: () => AsyncIterable<Part>): AsyncGenerator<Part> {
  for await (const part of attempt()) yield part
}

async function passThrough(parts: readonly Part[]): Promise<number> {
  const start = performance.now()
  let n = 0
  for await (const part of identity(() => replay(parts))) if (part.type === "text") n += part.text.length
  const elapsed = performance.now() - start
  if (n === 0) throw new Error("bench: nothing streamed")
  return elapsed
}

async function providerOnly(parts: readonly Part[]): Promise<number> {
  const start = performance.now()
  let n = 0
  for await (const part of replay(parts)) if (part.type === "text") n += part.text.length
  const elapsed = performance.now() - start
  if (n === 0) throw new Error("bench: nothing streamed")
  return elapsed
}

async function throughRunTurn(parts: readonly Part[]): Promise<number> {
  const start = performance.now()
  let n = 0
  for await (const part of recoverToolCalls<string>({ tools: TOOLS, attempt: () => replay(parts) })) {
    if (part.type === "text") n += part.text.length
  }
  const elapsed = performance.now() - start
  if (n === 0) throw new Error("bench: nothing streamed")
  return elapsed
}

/**
 * The detector's own cost in a stream: the pass-through middleware that also runs the detector
 * on each text delta (and nothing else: no hold-back, ordering, events or decision). Called
 * between microtask hops, the detector costs about twice what it costs in a tight synchronous
 * loop (colder caches, no inlining across the await), so this, not the loop, is the detector's
 * cost per delta that the middleware is compared with.
 */
async function* detecting(attempt: () => AsyncIterable<Part>): AsyncGenerator<Part> {
  const detector = createDetector({ tools: TOOLS })
  for await (const part of attempt()) {
    if (part.type !== "text") yield part
    else {
      const { text } = detector.push(part.text)
      yield text.length === part.text.length ? part : { ...part, text }
    }
  }
  detector.end()
}

async function detectorStream(parts: readonly Part[]): Promise<number> {
  const start = performance.now()
  let n = 0
  for await (const part of detecting(() => replay(parts))) if (part.type === "text") n += part.text.length
  const elapsed = performance.now() - start
  if (n === 0) throw new Error("bench: nothing streamed")
  return elapsed
}

/** The detector alone, in a synchronous loop: its floor. */
function detectorOnly(parts: readonly Part[]): number {
  const start = performance.now()
  const detector = createDetector({ tools: TOOLS })
  let n = 0
  for (const part of parts) if (part.type === "text") n += detector.push(part.text).text.length
  n += detector.end().text.length
  const elapsed = performance.now() - start
  if (n === 0) throw new Error("bench: nothing streamed")
  return elapsed
}

/**
 * Measures the variants back to back in each trial, rotating their order, after a warm-up. The
 * machine is shared (CI runners, parallel jobs), so every figure is the median over trials, and
 * the added cost is the median of the per-trial differences runTurn − pass-through (paired, so
 * load that hits one trial hits both of its measurements).
 */
export async function benchRecovery(
  options: { deltas?: number; iterations?: number; leaks?: boolean } = {},
): Promise<RecoveryBenchResult> {
  const deltas = options.deltas ?? 10_000
  const iterations = options.iterations ?? 60
  const leaks = options.leaks ?? false
  const parts = script(deltas, leaks)
  const textDeltas = parts.filter((p) => p.type === "text").length
  const runs: Array<() => Promise<number> | number> = [
    () => providerOnly(parts),
    () => passThrough(parts),
    () => detectorOnly(parts),
    () => detectorStream(parts),
    () => throughRunTurn(parts),
  ]
  for (let i = 0; i < 10; i++) for (const run of runs) await run()
  const times: number[][] = runs.map(() => [])
  for (let i = 0; i < iterations; i++) {
    for (let k = 0; k < runs.length; k++) {
      const which = (i + k) % runs.length
      times[which]!.push(await runs[which]!())
    }
  }
  const perDelta = (ms: number) => (ms * 1000) / textDeltas
  const [provider, pass, detectorLoop] = times.map((t) => perDelta(median(t))) as [number, number, number]
  const turn = perDelta(median(times[4]!))
  const paired = (k: number) => perDelta(median(times[k]!.map((t, i) => t - times[1]![i]!)))
  const detector = paired(3)
  const added = paired(4)
  return {
    name: `recovery runTurn, ${textDeltas} deltas, ${leaks ? "withheld markup every 500 deltas" : "clean prose"}`,
    deltas: textDeltas,
    iterations,
    providerMicros: provider,
    passThroughMicros: pass,
    detectorLoopMicros: detectorLoop,
    detectorMicros: detector,
    runTurnMicros: turn,
    addedMicros: added,
    addedOverDetector: added / detector,
  }
}

/** Prints one result as a small table. */
export function formatRecoveryBench(result: RecoveryBenchResult): string {
  return [
    `${result.name} (median of ${result.iterations})`,
    `  provider alone       ${result.providerMicros.toFixed(3)} µs per delta`,
    `  pass-through         ${result.passThroughMicros.toFixed(3)} µs per delta (identity middleware)`,
    `  detector, sync loop  ${result.detectorLoopMicros.toFixed(3)} µs per delta`,
    `  detector, in stream  ${result.detectorMicros.toFixed(3)} µs per delta (added to the pass-through)`,
    `  runTurn              ${result.runTurnMicros.toFixed(3)} µs per delta`,
    `  added by runTurn     ${result.addedMicros.toFixed(3)} µs per delta (median of paired differences)`,
    `  added / detector     ${result.addedOverDetector.toFixed(2)}× (target ≤ 2×)`,
  ].join("\n")
}

/** Both workloads as a Markdown report (for `run.ts`, which writes `bench/results/recovery.md`). */
export async function recoveryReport(): Promise<string> {
  const results = [await benchRecovery(), await benchRecovery({ leaks: true })]
  const row = (r: RecoveryBenchResult) =>
    `| ${r.name.replace(/^recovery runTurn, /, "")} | ${r.providerMicros.toFixed(3)} | ${r.passThroughMicros.toFixed(3)} | ${r.detectorLoopMicros.toFixed(3)} | ${r.detectorMicros.toFixed(3)} | ${r.runTurnMicros.toFixed(3)} | ${r.addedMicros.toFixed(3)} | ${r.addedOverDetector.toFixed(2)}× ${r.addedOverDetector <= 2 ? "✅" : "❌"} |`
  return [
    "## recovery: `runTurn` cost per delta",
    "",
    "µs per text delta, medians over interleaved trials. *Pass-through*: an identity middleware over the same",
    "attempt (the floor of any middleware of this shape). *Detector, in stream*: the pass-through plus",
    "`detector.push` per delta, minus the pass-through. *Added*: runTurn − pass-through (median of paired",
    "differences). Target (issue 5): added ≤ 2 × detector in stream.",
    "",
    "| workload | provider | pass-through | detector, sync loop | detector, in stream | runTurn | added | added / detector |",
    "|---|---|---|---|---|---|---|---|",
    ...results.map(row),
    "",
  ].join("\n")
}

registerSuite({ name: "recovery", run: recoveryReport })

if (import.meta.main) {
  console.log(formatRecoveryBench(await benchRecovery()))
  console.log(formatRecoveryBench(await benchRecovery({ leaks: true })))
}
