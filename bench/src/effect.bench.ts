/**
 * Effect's `LanguageModel.streamText` over an in-process model streaming text deltas, alone and
 * through `ToolCallRecovery.layer()`, in one run. A tool is offered, so the layer does its full
 * work (detector on every delta, splice, block ids); the text holds no markup, so both runs show
 * the same answer. The model emits one part per chunk, as a provider decoding SSE events does.
 *
 * Runs alone with `node bench/src/effect.bench.ts` (after `pnpm turbo run build`), or as the
 * `effect` suite of `run.ts`.
 */
import { ToolCallRecovery } from "@tool-rescue/effect"
import { Effect, Layer, Schema, Stream } from "effect"
import { LanguageModel, type Response, Tool, Toolkit } from "effect/ai"
import { CLEAN_WORDS, interleavedPairs, median, registerSuite } from "./suite.ts"

/** One measured comparison. Times are CPU time (see `cpuMs`) of one `streamText` call, in ms. */
export interface EffectBenchResult {
  readonly name: string
  readonly deltas: number
  readonly iterations: number
  readonly bareMs: number
  readonly layeredMs: number
  /** Median over interleaved pairs of layered / bare: drift hits both runs of a pair alike. */
  readonly ratio: number
  /** Added time per delta, in microseconds (from the medians). */
  readonly addedMicrosPerDelta: number
}

function parts(deltas: number): Response.StreamPartEncoded[] {
  const out: Response.StreamPartEncoded[] = [{ type: "text-start", id: "txt" }]
  for (let i = 0; i < deltas; i++)
    out.push({ type: "text-delta", id: "txt", delta: CLEAN_WORDS[i % CLEAN_WORDS.length]! })
  out.push(
    { type: "text-end", id: "txt" },
    {
      type: "finish",
      reason: "stop",
      usage: { inputTokens: { total: 10 }, outputTokens: { total: deltas } },
    },
  )
  return out
}

const ReadFile = Tool.make("read_file", {
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.String,
})
const toolkit = Toolkit.make(ReadFile)
const handlers = toolkit.toLayer({ read_file: ({ path }) => Effect.succeed(path) })

/** A model built with Effect's own `LanguageModel.make`, streaming `script` one part per chunk. */
function model(script: readonly Response.StreamPartEncoded[]): Layer.Layer<LanguageModel.LanguageModel> {
  const chunks = script.map((part) => [part])
  return Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: () => Effect.die("bench: streamText only"),
      streamText: () => Stream.fromArrays(...chunks),
    }),
  )
}

/**
 * CPU time of this process (user + system, all threads), in milliseconds. Not wall time: on a
 * machine shared with other jobs, wall time also counts the time the scheduler gave to them.
 */
function cpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

async function step(model: Layer.Layer<LanguageModel.LanguageModel>, layered: boolean): Promise<number> {
  const answer = LanguageModel.streamText({ prompt: "go", toolkit }).pipe(
    Stream.runFold(
      () => 0,
      (length, part) => (part.type === "text-delta" ? length + part.delta.length : length),
    ),
    Effect.provide(handlers),
  )
  const program = layered
    ? answer.pipe(Effect.provide(ToolCallRecovery.layer()), Effect.provide(model))
    : answer.pipe(Effect.provide(model))
  const start = cpuMs()
  const length = await Effect.runPromise(program)
  const elapsed = cpuMs() - start
  if (length === 0) throw new Error("bench: no text streamed")
  return elapsed
}

/** Measures both variants, interleaved (so machine noise hits both alike), after a warm-up. */
export async function benchEffect(
  options: { deltas?: number; iterations?: number } = {},
): Promise<EffectBenchResult> {
  const deltas = options.deltas ?? 5000
  const iterations = options.iterations ?? 15
  const layer = model(parts(deltas))
  const { base: bare, variant: layered } = await interleavedPairs(iterations, 3, (on) => step(layer, on))
  const ratios = layered.map((l, i) => l / bare[i]!)
  const bareMs = median(bare)
  const layeredMs = median(layered)
  return {
    name: `effect LanguageModel.streamText, ${deltas} deltas`,
    deltas,
    iterations,
    bareMs,
    layeredMs,
    ratio: median(ratios),
    addedMicrosPerDelta: ((layeredMs - bareMs) * 1000) / deltas,
  }
}

/** Prints one result as a small table. */
export function formatEffectBench(result: EffectBenchResult): string {
  return [
    `${result.name} (CPU time, median of ${result.iterations} interleaved pairs)`,
    `  Effect alone                 ${result.bareMs.toFixed(1)} ms`,
    `  through ToolCallRecovery     ${result.layeredMs.toFixed(1)} ms`,
    `  ratio                        ${result.ratio.toFixed(2)}x (${result.addedMicrosPerDelta.toFixed(2)} µs added per delta)`,
  ].join("\n")
}

/** The suite's Markdown report. */
export function markdownEffectBench(result: EffectBenchResult): string {
  return [
    "## effect: `LanguageModel.streamText` alone and through `ToolCallRecovery.layer()`",
    "",
    `One \`streamText\` call over an in-process model (Effect's \`LanguageModel.make\`) streaming`,
    `${result.deltas.toLocaleString("en")} text deltas, one part per chunk, a tool offered (so the layer does all its`,
    "work), no markup, the stream drained. CPU time of the process (wall time on a shared machine",
    `also counts other jobs), median of ${result.iterations} interleaved pairs, Node ${process.versions.node}.`,
    "",
    "| variant | `streamText` call (ms) | per delta (µs) |",
    "|---|---|---|",
    `| Effect alone | ${result.bareMs.toFixed(1)} | ${((result.bareMs * 1000) / result.deltas).toFixed(2)} |`,
    `| through \`ToolCallRecovery.layer()\` | ${result.layeredMs.toFixed(1)} | ${((result.layeredMs * 1000) / result.deltas).toFixed(2)} |`,
    "",
    `Ratio (median of the pairs): ${result.ratio.toFixed(2)}x Effect alone, ${result.addedMicrosPerDelta.toFixed(2)} µs added per delta.`,
  ].join("\n")
}

registerSuite({ name: "effect", run: async () => markdownEffectBench(await benchEffect()) })

if (import.meta.main) {
  console.log(formatEffectBench(await benchEffect()))
}
