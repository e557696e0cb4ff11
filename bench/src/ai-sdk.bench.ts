/**
 * `streamText` over a mock stream of 10,000 text deltas, with and without
 * `toolCallRecoveryMiddleware`, in one run. A tool is offered, so the middleware does its full
 * work (detector on every delta, splice, re-framing); the text holds no markup, so both runs show
 * the same answer. Target (issue 6): at most 10% added time per step.
 *
 * Runs alone with `node bench/src/ai-sdk.bench.ts` (built packages), or as the `ai-sdk` suite of
 * `run.ts`.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider"
import { toolCallRecoveryMiddleware } from "@tool-rescue/ai-sdk"
import { jsonSchema, streamText, tool, wrapLanguageModel } from "ai"
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test"
import { CLEAN_WORDS, interleavedPairs, median, registerSuite } from "./suite.ts"

/** One measured comparison. Times are CPU time (see `cpuMs`) of one `streamText` step, in ms. */
export interface AiSdkBenchResult {
  readonly name: string
  readonly deltas: number
  readonly iterations: number
  readonly bareMs: number
  readonly wrappedMs: number
  /**
   * Median over interleaved pairs of (wrapped − bare) / bare, in percent: each pair runs back to
   * back, so drift (heap growth, JIT, thermal) hits both runs of a pair alike. Checked against
   * the target.
   */
  readonly overheadPercent: number
  /** Added time per delta, in microseconds (from the medians). */
  readonly addedMicrosPerDelta: number
  /** Reading the model's own stream (no `streamText`), µs per delta, medians: bare and wrapped. */
  readonly modelMicros: number
  readonly wrappedModelMicros: number
}

function parts(deltas: number): LanguageModelV4StreamPart[] {
  const out: LanguageModelV4StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: "resp", modelId: "bench", timestamp: new Date(0) },
    { type: "text-start", id: "txt-0" },
  ]
  for (let i = 0; i < deltas; i++)
    out.push({ type: "text-delta", id: "txt-0", delta: CLEAN_WORDS[i % CLEAN_WORDS.length]! })
  out.push(
    { type: "text-end", id: "txt-0" },
    {
      type: "finish",
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: deltas, text: deltas, reasoning: undefined },
      },
    },
  )
  return out
}

const tools = {
  read_file: tool({
    description: "Read a file",
    inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } } }),
    execute: async ({ path }) => path,
  }),
}

/**
 * CPU time of this process (user + system, all threads), in milliseconds. Not wall time: on a
 * machine shared with other jobs, wall time also counts the time the scheduler gave to them.
 */
function cpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

function model(script: readonly LanguageModelV4StreamPart[], wrapped: boolean) {
  const bare = new MockLanguageModelV4({
    doStream: async () => ({ stream: convertArrayToReadableStream([...script]) }),
  })
  return wrapped ? wrapLanguageModel({ model: bare, middleware: toolCallRecoveryMiddleware() }) : bare
}

async function step(script: readonly LanguageModelV4StreamPart[], wrapped: boolean): Promise<number> {
  const m = model(script, wrapped)
  const start = cpuMs()
  const result = streamText({ model: m, prompt: "go", tools })
  await result.consumeStream()
  const elapsed = cpuMs() - start
  if (!(await result.text).startsWith("the model")) throw new Error("bench: unexpected output")
  return elapsed
}

/** The model's stream alone, read to the end: what the middleware adds without the SDK around it. */
async function modelOnly(script: readonly LanguageModelV4StreamPart[], wrapped: boolean): Promise<number> {
  const m = model(script, wrapped)
  const start = cpuMs()
  const { stream } = await m.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
    tools: [{ type: "function", name: "read_file", inputSchema: { type: "object" } }],
  })
  const reader = stream.getReader()
  let n = 0
  for (let next = await reader.read(); next.done !== true; next = await reader.read()) n++
  const elapsed = cpuMs() - start
  if (n < script.length - 2) throw new Error("bench: parts missing")
  return elapsed
}

/** Measures both variants, interleaved (so machine noise hits both alike), after a warm-up. */
export async function benchAiSdk(
  options: { deltas?: number; iterations?: number } = {},
): Promise<AiSdkBenchResult> {
  const deltas = options.deltas ?? 10_000
  const iterations = options.iterations ?? 25
  const script = parts(deltas)
  const { base: bare, variant: wrapped } = await interleavedPairs(iterations, 3, (on) => step(script, on))
  const ratios = wrapped.map((w, i) => (w - bare[i]!) / bare[i]!)
  const modelBare: number[] = []
  const modelWrapped: number[] = []
  for (let i = 0; i < iterations; i++) {
    modelBare.push(await modelOnly(script, false))
    modelWrapped.push(await modelOnly(script, true))
  }
  const bareMs = median(bare)
  const wrappedMs = median(wrapped)
  return {
    name: `ai-sdk streamText, ${deltas} deltas`,
    deltas,
    iterations,
    bareMs,
    wrappedMs,
    overheadPercent: median(ratios) * 100,
    addedMicrosPerDelta: ((wrappedMs - bareMs) * 1000) / deltas,
    modelMicros: (median(modelBare) * 1000) / deltas,
    wrappedModelMicros: (median(modelWrapped) * 1000) / deltas,
  }
}

/** Prints one result as a small table. */
export function formatAiSdkBench(result: AiSdkBenchResult): string {
  return [
    `${result.name} (CPU time, median of ${result.iterations} interleaved pairs)`,
    `  without middleware  ${result.bareMs.toFixed(1)} ms`,
    `  with middleware     ${result.wrappedMs.toFixed(1)} ms`,
    `  added               ${result.overheadPercent.toFixed(1)}% (${result.addedMicrosPerDelta.toFixed(2)} µs per delta; target ≤ 10%)`,
    `  model stream alone  ${result.modelMicros.toFixed(2)} µs per delta, wrapped ${result.wrappedModelMicros.toFixed(2)} µs`,
  ].join("\n")
}

/** The suite's Markdown report. */
export function markdownAiSdkBench(result: AiSdkBenchResult): string {
  const verdict = result.overheadPercent <= 10 ? "within" : "**over**"
  return [
    "## ai-sdk: `streamText` with and without `toolCallRecoveryMiddleware`",
    "",
    `One step of \`streamText\` over a mock stream of ${result.deltas.toLocaleString("en")} text deltas, a tool offered`,
    "(so the middleware does all its work), no markup. CPU time of the process (wall time on a shared",
    `machine also counts other jobs), median of ${result.iterations} interleaved pairs, Node ${process.versions.node}.`,
    "",
    "| variant | `streamText` step (ms) | model stream alone (µs per delta) |",
    "|---|---|---|",
    `| without middleware | ${result.bareMs.toFixed(1)} | ${result.modelMicros.toFixed(2)} |`,
    `| with middleware | ${result.wrappedMs.toFixed(1)} | ${result.wrappedModelMicros.toFixed(2)} |`,
    "",
    `Added per step: ${result.overheadPercent.toFixed(1)}% (${result.addedMicrosPerDelta.toFixed(2)} µs per delta), ${verdict} the target of ≤ 10%.`,
  ].join("\n")
}

registerSuite({ name: "ai-sdk", run: async () => markdownAiSdkBench(await benchAiSdk()) })

if (import.meta.main) {
  console.log(formatAiSdkBench(await benchAiSdk()))
}
