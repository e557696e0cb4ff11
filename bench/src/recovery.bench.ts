/**
 * Cost per delta of `runTurn` (`@tool-rescue/recovery`) against a pass-through of the same part
 * stream, in one run, next to the detector's own cost per delta. Target (issue 5): the
 * middleware adds at most 2× the detector's own cost per delta, i.e.
 * (runTurn − pass-through) ≤ 2 × detector.
 *
 * Two workloads of 10,000 text deltas with an offered tool:
 * - `clean`: prose holding `<`, `[` and `{` (hold-back paths), no markup;
 * - `withheld`: the same prose with a leaked call to a tool that is not offered every 500
 *   deltas (detected and withheld, never retried), so the queue and markup paths run too.
 *
 * Runs alone with `node bench/src/recovery.bench.ts` (built packages), or from `run.ts`.
 */
import { createDetector } from "@tool-rescue/detector"
import { type NormalizedPart, runTurn } from "@tool-rescue/recovery"

/** One measured comparison. */
export interface RecoveryBenchResult {
  readonly name: string
  readonly deltas: number
  readonly iterations: number
  /** Median microseconds per delta of each variant. `providerMicros`: iterating the provider alone. */
  readonly providerMicros: number
  readonly passThroughMicros: number
  readonly detectorMicros: number
  readonly runTurnMicros: number
  /** (runTurn − pass-through) / detector: the target is ≤ 2. */
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
  for await (const part of runTurn<string>({ tools: TOOLS, attempt: () => replay(parts) })) {
    if (part.type === "text") n += part.text.length
  }
  const elapsed = performance.now() - start
  if (n === 0) throw new Error("bench: nothing streamed")
  return elapsed
}

/** The detector alone, synchronously: what the middleware builds on. */
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Measures the three variants, interleaved and in rotating order, after a warm-up. */
export async function benchRecovery(
  options: { deltas?: number; iterations?: number; leaks?: boolean } = {},
): Promise<RecoveryBenchResult> {
  const deltas = options.deltas ?? 10_000
  const iterations = options.iterations ?? 30
  const leaks = options.leaks ?? false
  const parts = script(deltas, leaks)
  const textDeltas = parts.filter((p) => p.type === "text").length
  const runs: Array<() => Promise<number> | number> = [
    () => providerOnly(parts),
    () => passThrough(parts),
    () => detectorOnly(parts),
    () => throughRunTurn(parts),
  ]
  for (let i = 0; i < 5; i++) for (const run of runs) await run()
  const times: number[][] = runs.map(() => [])
  for (let i = 0; i < iterations; i++) {
    for (let k = 0; k < runs.length; k++) {
      const which = (i + k) % runs.length
      times[which]!.push(await runs[which]!())
    }
  }
  const [provider, pass, detector, turn] = times.map((t) => (median(t) * 1000) / textDeltas) as [
    number,
    number,
    number,
    number,
  ]
  return {
    name: `recovery runTurn, ${textDeltas} deltas, ${leaks ? "withheld markup every 500 deltas" : "clean prose"}`,
    deltas: textDeltas,
    iterations,
    providerMicros: provider,
    passThroughMicros: pass,
    detectorMicros: detector,
    runTurnMicros: turn,
    addedOverDetector: (turn - pass) / detector,
  }
}

/** Prints one result as a small table. */
export function formatRecoveryBench(result: RecoveryBenchResult): string {
  return [
    `${result.name} (median of ${result.iterations})`,
    `  provider alone       ${result.providerMicros.toFixed(3)} µs per delta`,
    `  pass-through         ${result.passThroughMicros.toFixed(3)} µs per delta (identity middleware)`,
    `  detector alone       ${result.detectorMicros.toFixed(3)} µs per delta`,
    `  runTurn              ${result.runTurnMicros.toFixed(3)} µs per delta`,
    `  added / detector     ${result.addedOverDetector.toFixed(2)}× (target ≤ 2×)`,
  ].join("\n")
}

if (import.meta.main) {
  console.log(formatRecoveryBench(await benchRecovery()))
  console.log(formatRecoveryBench(await benchRecovery({ leaks: true })))
}
