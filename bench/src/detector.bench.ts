/**
 * `@tool-rescue/detector` throughput, in one run, on the same generated streams, against:
 * 1. the naive approach: accumulate the text and re-scan all of it on every delta (what vLLM's
 *    legacy parsers and llama.cpp's server do);
 * 2. `@ai-sdk-tool/parser`'s streaming parser (`qwen3CoderProtocol().createStreamParser`, the
 *    transform inside its `qwen3CoderToolMiddleware`) on the same deltas;
 * 3. the limit: one pass of a single character-class scan for the detector's trigger characters.
 * Also: retained heap per live idle detector (10,000 of them) and the 10 MB / 1 MB time ratio.
 * Every time is CPU time of this process (the machine is shared; see `timing`).
 *
 * Targets (issue 3): ≥ 50 MB/s at 4-character deltas; ≥ 50% of the limit at 64 KiB chunks;
 * ≥ 100× the naive approach on a 100 KB stream; faster than `@ai-sdk-tool/parser`; ≤ 2 KB per
 * idle detector; 10 MB / 1 MB time ratio ≤ 11. Issue 13: hostile streams (backtick runs, fences in
 * fences, `<` and `｜` floods, repeated partial markers of every format) ≥ 10 MB/s at 4-character deltas.
 *
 * Issue 27: the previous release's detector (commit 3cd259c, built from git at run time by
 * `buildFromGit`) beside today's and a one-pass character-class scan (the floor: a global regular
 * expression over every character a marker or a Markdown construct can start with), in the same
 * rounds: dense Markdown (4 MB) at 64 KiB chunks and 4-character deltas, and the hostile streams.
 * Targets: ≥ 70% of the floor at 64 KiB; ≥ 100 MB/s at 4-character deltas; every hostile stream
 * ≥ 15 MB/s; ≤ 1 KB per idle detector; 10 MB / 1 MB ≤ 11.
 *
 * "MB" is 10^6 UTF-16 code units; every stream here is ASCII, so it is also 10^6 bytes.
 */

import { spawnSync } from "node:child_process"
import { availableParallelism, cpus as cpuList, loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider"
import { qwen3CoderProtocol } from "@ai-sdk-tool/parser"
import { createDetector, type FormatId } from "@tool-rescue/detector"
// The compiled tables (not exported): the floor scans for the characters the detector's prose scan
// starts at.
import { tablesFor } from "../../packages/detector/src/compile.ts"
// The format table itself (not exported): the hostile streams repeat every marker it holds.
import { OPENER_ROWS, REASONING_ROWS, TOKEN_ROWS } from "../../packages/detector/src/format-table.ts"
import { resolveOptions } from "../../packages/detector/src/resolve-options.ts"
import { buildFromGit } from "./build-from-git.ts"
import { median, registerSuite } from "./suite.ts"

const cpus = (): string => cpuList()[0]?.model.trim() ?? "unknown CPU"

const TOOLS = ["read_file", "write_file", "bash"]
const KB = 1000
const MB = 1000 * KB
const CHUNK_SMALL = 4
const CHUNK_LARGE = 64 * 1024

// --- streams -------------------------------------------------------------------------------------

/** A small deterministic PRNG (mulberry32), so every run measures the same text. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS =
  "the a model file answer function value to of and in that is for it with as was on be at by this from or have an they which one you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three".split(
    " ",
  )

/** Prose with no character that can start markup but letters (`t`, `f`) and line feeds. */
function prose(size: number, seed = 1): string {
  const next = random(seed)
  const parts: string[] = []
  let length = 0
  while (length < size) {
    const words = 8 + Math.floor(next() * 14)
    const sentence: string[] = []
    for (let i = 0; i < words; i++) sentence.push(WORDS[Math.floor(next() * WORDS.length)]!)
    let s = sentence.join(" ")
    s = `${s[0]!.toUpperCase()}${s.slice(1)}${next() < 0.2 ? ", 42%" : ""}.${next() < 0.15 ? "\n\n" : " "}`
    parts.push(s)
    length += s.length
  }
  return parts.join("").slice(0, size)
}

const SNIPPETS = [
  'Wrap it in <div class="card"><p>Hello <b>world</b></p></div> and check that a < b and x<y hold. ',
  "Call `read(path)` with `{ encoding: 'utf8' }` first; `a[i]` is the item [1]. ",
  "See [the docs](https://example.com/docs?a=1&b=2) and <https://example.com>. ",
  "\n\n```ts\nconst xs: Array<number> = [1, 2, 3]\nfor (const x of xs) if (x < 2 && xs[x] > 0) console.log('<' + x + '>')\n```\n\n",
  "Use <br/> or <!-- a comment --> in HTML; `<tool_call>` is the tag the model should never print. ",
  '\n\n~~~html\n<template><slot name="a"></slot></template>\n~~~\n\n',
  "The generic `Map<string, Set<number>>` keeps [keys] and {values}; `` `a` `` nests. ",
  "Press the ` key, then <Enter>. ",
]

/** Prose dense with `<`, backticks, HTML, brackets and fences (and a quoted `<tool_call>` example). */
function dense(size: number, seed = 2): string {
  const next = random(seed)
  const parts: string[] = []
  let length = 0
  while (length < size) {
    const s =
      next() < 0.5
        ? SNIPPETS[Math.floor(next() * SNIPPETS.length)]!
        : prose(80 + Math.floor(next() * 200), seed++)
    parts.push(s)
    length += s.length
  }
  return parts.join("").slice(0, size)
}

/** A Qwen3-Coder call leaked as text whose `content` parameter is `size` characters of code. */
function leak(size: number): string {
  const head =
    "I'll write the file now.\n\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/big.ts\n</parameter>\n<parameter=content>\n"
  const tail = "\n</parameter>\n</function>\n</tool_call>"
  const code: string[] = []
  let length = 0
  let i = 0
  while (length < size) {
    const line = `export function f${i}<T extends Record<string, unknown>>(xs: T[]): T | undefined { return xs.length > ${i % 7} ? xs[${i % 3}] : undefined } // \`f${i}\`\n`
    code.push(line)
    length += line.length
    i++
  }
  return head + code.join("").slice(0, size) + tail
}

// --- hostile streams (issue 13): what makes a streaming scanner rescan held text -----------------

/** `unit` repeated to exactly `size` characters. */
function repeat(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
}

/** Every marker of a format's rows: openers, body literals and closers, special tokens, its reasoning blocks. */
function markersOf(format: FormatId): string[] {
  const markers = new Set<string>()
  for (const row of [...OPENER_ROWS, ...TOKEN_ROWS]) {
    if (row.format !== format) continue
    for (const literal of row.literals) markers.add(literal)
    const body = row.body
    if (body.kind === "tags") for (const e of body.entries) markers.add(e.literal)
    else for (const c of body.closers) markers.add(c)
  }
  for (const row of REASONING_ROWS) {
    if (row.formats === undefined || !row.formats.includes(format)) continue
    for (const literal of row.literals) markers.add(literal)
    for (const c of row.close) markers.add(c.literal)
  }
  return [...markers]
}

const FORMATS: readonly FormatId[] = [...new Set([...OPENER_ROWS, ...TOKEN_ROWS].map((r) => r.format))]

/**
 * Every proper prefix of every marker, each repeated 8 times (`<to<to<to…`, `<｜tool▁ca<｜tool▁ca…`),
 * then the whole markers repeated: each prefix is held until the next character disproves it.
 */
function partialMarkers(markers: readonly string[], size: number): string {
  const parts: string[] = []
  for (const marker of markers) {
    for (let k = 1; k < marker.length; k++) parts.push(marker.slice(0, k).repeat(8))
    parts.push(marker.repeat(8))
  }
  return repeat(parts.join(""), size)
}

/** Backtick runs of every length from 1 up, each closed by ` x ` (an inline run that never closes). */
function backtickRuns(size: number): string {
  const parts: string[] = []
  let length = 0
  for (let k = 1; length < size; k++) {
    parts.push(`${"`".repeat(k)} x `)
    length += k + 3
  }
  return parts.join("").slice(0, size)
}

/** Fences inside fences: each block opens with a longer run than the fence lines it holds. */
function nestedFences(size: number, seed = 3): string {
  const next = random(seed)
  const parts: string[] = []
  let length = 0
  while (length < size) {
    const char = next() < 0.5 ? "`" : "~"
    const outer = 4 + Math.floor(next() * 60)
    const lines = [`${char.repeat(outer)}md`]
    for (let k = 0; k < 6; k++)
      lines.push(
        `${"`~"[k & 1]!.repeat(3 + Math.floor(next() * (outer - 3)))}${k % 3 === 0 ? "js" : ""}`,
        "<tool_call>`x`",
      )
    lines.push(char.repeat(outer), "")
    const block = lines.join("\n")
    parts.push(block)
    length += block.length
  }
  return parts.join("").slice(0, size)
}

/** The hostile streams, each `size` characters. */
function hostile(size: number): [string, string][] {
  const bars = [...new Set(FORMATS.flatMap(markersOf))].filter((m) => m.includes("｜"))
  return [
    ["hostile: one backtick run", repeat("`", size)],
    ["hostile: backtick runs of every length", backtickRuns(size)],
    ["hostile: `<` flood", repeat("<", size)],
    ["hostile: fullwidth bars `｜`", repeat("｜", size)],
    ["hostile: fullwidth-bar partial markers", partialMarkers(bars, size)],
    ["hostile: nested fences", nestedFences(size)],
    [
      "hostile: partial markers of every format",
      partialMarkers([...new Set(FORMATS.flatMap(markersOf))], size),
    ],
  ]
}

function chunk(text: string, size: number): string[] {
  const chunks: string[] = []
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size))
  return chunks
}

// --- contenders ----------------------------------------------------------------------------------

type DetectorLoop = (chunks: readonly string[], make?: typeof createDetector) => number

/**
 * {@link detector} compiled again: a loop of its own, whose call sites see only one detector's
 * `push`. With one loop shared by two builds (today's and the previous release's), its call of
 * `push` saw two functions: V8 optimised it again and again, and which build it inlined was the
 * JIT's choice, not the code's (the same code read 0.94–1.07× of itself from run to run).
 */
function ownDetectorLoop(): DetectorLoop {
  // (The module bindings it reads are passed in: `new Function` compiles in the global scope.)
  return new Function("TOOLS", "createDetector", `return ${detector.toString()}`)(
    TOOLS,
    createDetector,
  ) as DetectorLoop
}

function detector(chunks: readonly string[], make: typeof createDetector = createDetector): number {
  const d = make({ tools: TOOLS })
  let shown = 0
  let calls = 0
  for (const c of chunks) {
    const r = d.push(c)
    shown += r.text.length
    calls += r.markup.length
  }
  const r = d.end()
  return shown + r.text.length + (calls + r.markup.length) * 1e9
}

/** The detector on `text` cut into `size`-character deltas as it goes. */
function detectorSliced(text: string, size: number): number {
  const d = createDetector({ tools: TOOLS })
  let shown = 0
  for (let i = 0; i < text.length; i += size) shown += d.push(text.slice(i, i + size)).text.length
  return shown + d.end().text.length
}

const NAIVE_LITERALS = [
  "<tool_call>",
  "</tool_call>",
  "<function=",
  "</function>",
  "<parameter=",
  "</parameter>",
]

/** Longest suffix of `text` that is a proper prefix of `tag` (vLLM `partial_tag_overlap`, longest first). */
function partialOverlap(text: string, tag: string): number {
  for (let k = Math.min(tag.length - 1, text.length); k > 0; k--) if (text.endsWith(tag.slice(0, k))) return k
  return 0
}

/**
 * The naive approach, as vLLM's legacy Qwen3-Coder parser does it per delta: accumulate, then
 * re-scan the whole accumulated text for every marker (`current_text.count(...)`, structural
 * end positions walked from 0) and hold back a partial opener. A lower bound on the real thing:
 * it does no parsing, no fence tracking, only `indexOf` over everything received so far.
 */
function naive(chunks: readonly string[]): number {
  let acc = ""
  let sent = 0
  for (const c of chunks) {
    acc += c
    let first = acc.length
    let count = 0
    for (const literal of NAIVE_LITERALS) {
      for (let k = acc.indexOf(literal); k >= 0; k = acc.indexOf(literal, k + literal.length)) {
        if (k < first) first = k
        count++
      }
    }
    const hold = Math.max(partialOverlap(acc, "<tool_call>"), partialOverlap(acc, "<function="))
    const safe = Math.min(first, acc.length - hold)
    if (safe > sent) sent = safe
    if (count < 0) throw new Error("unreachable")
  }
  return sent
}

const V3_TOOLS = TOOLS.map((name) => ({
  type: "function" as const,
  name,
  inputSchema: { type: "object" as const, properties: { path: { type: "string" as const } } },
}))

/** Counts what a part stream handed out; it ends early once `deadline` (a `performance.now()` time) passes. */
interface Feed {
  chars: number
  deadline: number
}

/**
 * The deltas as a pull-based part stream. Past the deadline it ends early: a parser that buffers
 * everything (and so never lets a read resolve) is still stopped on time.
 */
function parts(
  chunks: readonly string[],
  feed: Feed = { chars: 0, deadline: Number.POSITIVE_INFINITY },
): ReadableStream<LanguageModelV3StreamPart> {
  let next = -2
  return new ReadableStream<LanguageModelV3StreamPart>(
    {
      pull(controller) {
        if (next === -2) controller.enqueue({ type: "stream-start", warnings: [] })
        else if (next === -1) controller.enqueue({ type: "text-start", id: "t" })
        else if (next < chunks.length && ((next & 255) !== 0 || performance.now() < feed.deadline)) {
          const delta = chunks[next]!
          feed.chars += delta.length
          controller.enqueue({ type: "text-delta", id: "t", delta })
        } else {
          controller.enqueue({ type: "text-end", id: "t" })
          controller.enqueue({
            type: "finish",
            finishReason: { unified: "stop", raw: "stop" },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 1, text: 1, reasoning: undefined },
            },
          })
          controller.close()
        }
        next++
      },
    },
    { highWaterMark: 64 },
  )
}

async function drain(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<number> {
  const reader = stream.getReader()
  let shown = 0
  let calls = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (value.type === "text-delta") shown += value.delta.length
    else if (value.type === "tool-call") calls++
  }
  return shown + calls * 1e9
}

/** `@ai-sdk-tool/parser`'s stream parser on the deltas, fed for at most `budgetMs`. Returns the characters fed. */
async function parser(chunks: readonly string[], budgetMs: number): Promise<number> {
  const feed: Feed = { chars: 0, deadline: performance.now() + budgetMs }
  await drain(parts(chunks, feed).pipeThrough(qwen3CoderProtocol().createStreamParser({ tools: V3_TOOLS })))
  return feed.chars
}

/** The detector behind the same kind of TransformStream, for a like-for-like comparison with the parser. */
function detectorStream(chunks: readonly string[]): Promise<number> {
  const d = createDetector({ tools: TOOLS })
  return drain(
    parts(chunks).pipeThrough(
      new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          if (part.type !== "text-delta") return controller.enqueue(part)
          const r = d.push(part.delta)
          if (r.text.length > 0) controller.enqueue({ ...part, delta: r.text })
        },
        flush(controller) {
          const r = d.end()
          if (r.text.length > 0) controller.enqueue({ type: "text-delta", id: "t", delta: r.text })
        },
      }),
    ),
  )
}

/** The detector's trigger characters outside markup (its compiled text table for the default formats). */
const TRIGGERS = "<[]`\ntf"
const TRIGGER_TABLE = new Uint8Array(128)
for (const c of TRIGGERS) TRIGGER_TABLE[c.charCodeAt(0)] = 1

/** The limit: one pass of one character-class scan over the whole text. */
function limit(text: string): number {
  let hits = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 128 && TRIGGER_TABLE[c] === 1) hits++
  }
  return hits
}

// --- measurement ---------------------------------------------------------------------------------

let sink = 0

const gc = (globalThis as { gc?: () => void }).gc

/** Timings of one workload: the fastest run and the median. */
interface Timing {
  readonly min: number
  readonly median: number
}

/** Milliseconds of CPU time (user + system) this process has used. */
function cpuNow(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * CPU milliseconds of at least `runs` timed runs, and of as many as fit in `windowMs` (two seconds
 * unless told; up to 200: on a shared machine the fastest run is the one the neighbours disturbed least).
 * Warm-up: `warm` runs and at least 300 ms, then one full GC, when exposed (`--expose-gc`). Not one
 * before each timed run: a full GC leaves the young generation at its smallest, and a run that
 * allocates (a result per delta) then paid for growing it again on every run (1.6× the time on
 * dense prose at 4-character deltas), which no long-lived process does. With `gcEach` (the scaling
 * ratio, which compares two run lengths), a full GC before each timed run: each run starts from the
 * same heap, and a 10 MB run does not collect the garbage the runs before it left. CPU time, not wall time: the machine is shared, and on a loaded one wall time
 * measures the neighbours (a run waits for a core); CPU time is what the run itself cost, about
 * what wall time is on a quiet machine. The report uses the fastest run (every contender is timed
 * the same way) and shows the median beside it.
 */
async function timing(
  run: () => number | Promise<number>,
  runs: number,
  warm = 2,
  gcEach = false,
  windowMs = 2000,
): Promise<Timing> {
  const warmStart = performance.now()
  for (let i = 0; i < warm || performance.now() - warmStart < 300; i++) sink += await run()
  gc?.()
  const times: number[] = []
  const start = performance.now()
  while (times.length < runs || (performance.now() - start < windowMs && times.length < 200)) {
    if (gcEach) gc?.()
    const t = cpuNow()
    sink += await run()
    // At least a microsecond: `cpuUsage` counts in microseconds.
    times.push(Math.max(cpuNow() - t, 0.001))
  }
  return { min: Math.min(...times), median: median(times) }
}

async function time(
  run: () => number | Promise<number>,
  runs: number,
  warm = 2,
  gcEach = false,
  windowMs = 2000,
): Promise<number> {
  return (await timing(run, runs, warm, gcEach, windowMs)).min
}

const rate = (chars: number, ms: number): number => chars / MB / (ms / 1000)
const fmt = (x: number, digits = 0): string =>
  x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const mbps = (x: number): string => `${x >= 10 ? fmt(x) : x >= 1 ? fmt(x, 1) : x.toPrecision(2)} MB/s`

function retainedPerDetector(count: number): number | undefined {
  if (gc === undefined) return undefined
  // The compiled tables are shared by every detector with the same options: made before the count.
  createDetector({ tools: TOOLS }).push("warm up ")
  gc()
  gc()
  const before = process.memoryUsage().heapUsed
  const live: unknown[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const d = createDetector({ tools: TOOLS })
    d.push("Sure, I will ") // idle between deltas
    live[i] = d
  }
  gc()
  gc()
  const after = process.memoryUsage().heapUsed
  if (live.length !== count) throw new Error("unreachable")
  return (after - before) / count
}

interface Row {
  readonly stream: string
  readonly size: number
  readonly chunk: number
  readonly detector: number
  readonly detectorMedian: number
  /** MB/s; `parserShare` < 1: it did not finish within the budget (the rate is over what it consumed). */
  readonly parser: number
  readonly parserShare: number
  readonly detectorStream: number
  readonly limit: number
}

/** The timing window of a per-format row (of each of its two processes: see `benchDetector`). */
const FORMAT_WINDOW_MS = 1000

/** A budget per `@ai-sdk-tool/parser` run: it is quadratic on some streams and would run for minutes. */
const PARSER_BUDGET_MS = 15_000

/** The same for hostile streams (seven of them; the parser is quadratic on most). */
const HOSTILE_PARSER_BUDGET_MS = 5_000

async function measureParser(
  chunks: readonly string[],
  size: number,
  runs: number,
  budgetMs: number,
): Promise<[number, number]> {
  const rates: number[] = []
  let share = 1
  for (let i = 0; i < runs; i++) {
    const start = cpuNow()
    const fed = await parser(chunks, budgetMs)
    const ms = cpuNow() - start
    rates.push(rate(fed, ms))
    share = Math.min(share, fed / size)
    if (fed < size) break
  }
  return [median(rates), share]
}

async function measureStream(
  name: string,
  text: string,
  chunkSize: number,
  runs: number,
  parserBudgetMs = PARSER_BUDGET_MS,
): Promise<Row> {
  const chunks = chunk(text, chunkSize)
  log(`${name}, ${chunkSize === CHUNK_SMALL ? "4-char deltas" : "64 KiB chunks"}`)
  const detectorTiming = await timing(() => detector(chunks), runs)
  const detectorMs = detectorTiming.min
  log(`  detector ${mbps(rate(text.length, detectorMs))}`)
  const [parserRate, parserShare] = await measureParser(
    chunks,
    text.length,
    chunkSize === CHUNK_SMALL ? 1 : 5,
    parserBudgetMs,
  )
  log(`  parser ${mbps(parserRate)} (${fmt(100 * parserShare)}% consumed)`)
  const streamMs = await time(() => detectorStream(chunks), Math.max(3, runs >> 2), 1)
  log(`  detector (stream) ${mbps(rate(text.length, streamMs))}`)
  const limitMs = await time(() => limit(text), runs)
  // Sanity: the same result however the stream is chunked. Checked after the timing, not before
  // (as the per-format rows): one push of the whole stream first warms the row up on an input
  // unlike its own, and left rows slower than they are.
  if (detector(chunks) !== detector([text]))
    throw new Error(`bench: ${name} detector results differ by chunking`)
  return {
    stream: name,
    size: text.length,
    chunk: chunkSize,
    detector: rate(text.length, detectorMs),
    detectorMedian: rate(text.length, detectorTiming.median),
    parser: parserRate,
    parserShare,
    detectorStream: rate(text.length, streamMs),
    limit: rate(text.length, limitMs),
  }
}

function log(message: string): void {
  console.error(`  detector bench: ${message}`)
}

/** The realistic streams, by name (built the same in every process: the generators are seeded). */
function realistic(): [string, string][] {
  return [
    ["prose, no markers", prose(1 * MB)],
    ["prose dense with `<`, backticks, HTML, fences", dense(1 * MB)],
    ["leaked call, 100 KB parameter", leak(100 * KB)],
  ]
}

// --- the previous release (issue 27) -------------------------------------------------------------

/** The previous release's commit: its detector runs beside today's. */
const RELEASE = "3cd259c"

/** Set for the row processes: the file URL of the previous release's detector, bundled from git. */
const RELEASE_ENV = "TOOL_RESCUE_BENCH_RELEASE_DETECTOR"

/** The dense Markdown stream of the release rows. */
const RELEASE_DENSE = "dense Markdown (`<`, backticks, HTML, fences), 4 MB"

/** The realistic streams run beside the previous release at 4-character deltas (see {@link realistic}). */
const RELEASE_PROSE = "prose, no markers"
const RELEASE_LEAK = "leaked call, 100 KB parameter"

/**
 * The floor's characters: every character the detector's prose scan can stop at (its compiled
 * trigger table for the default formats: the first characters of the markers, line feeds and
 * backticks), as a global regular expression.
 */
function floorChars(): RegExp {
  const { tools, enabled } = resolveOptions({ tools: TOOLS })
  const trigger = tablesFor(undefined, enabled, tools).textScan.trigger
  const chars: string[] = []
  for (let c = 0; c < 128; c++) if (trigger[c] === 1) chars.push(`\\x${c.toString(16).padStart(2, "0")}`)
  return new RegExp(`[${chars.join("")}]`, "g")
}

/** The floor: one pass of the character-class search over the whole text (a count of its hits). */
function floor(text: string, chars: RegExp): number {
  chars.lastIndex = 0
  let hits = 0
  while (chars.test(text)) hits++
  return hits
}

/** Today's detector, the previous release's and the floor on one stream, in the same rounds. */
interface ReleaseRow {
  readonly stream: string
  readonly size: number
  readonly chunk: number
  readonly rounds: number
  /** MB/s, the fastest round of each. */
  readonly today: number
  readonly release: number
  readonly floor: number
  /** Medians of the rounds' ratios. */
  readonly todayOverRelease: number
  readonly todayOverFloor: number
  readonly releaseOverFloor: number
}

/**
 * The three contenders on `text`, round after round (the order rotating), after two warm-up
 * rounds and one full GC: each round's CPU time of each, so the machine's load hits all three alike.
 */
async function releaseRow(
  name: string,
  text: string,
  chunkSize: number,
  rounds: number,
): Promise<ReleaseRow> {
  // Set by the suite for every row; a row run on its own (see `JOB_ENV`) builds it here.
  const url = process.env[RELEASE_ENV] ?? (await buildFromGit("detector", RELEASE))
  const release = (await import(url)) as { readonly createDetector: typeof createDetector }
  const chunks = chunk(text, chunkSize)
  const chars = floorChars()
  log(`${name}, ${chunkSize === CHUNK_SMALL ? "4-char deltas" : "64 KiB chunks"}: today, ${RELEASE}, floor`)
  const todayLoop = ownDetectorLoop()
  const releaseLoop = ownDetectorLoop()
  const runs = [
    () => todayLoop(chunks, createDetector),
    () => releaseLoop(chunks, release.createDetector),
    () => floor(text, chars),
  ]
  for (let w = 0; w < 2; w++) for (const run of runs) sink += run()
  gc?.()
  const times: [number[], number[], number[]] = [[], [], []]
  for (let r = 0; r < rounds; r++)
    for (let k = 0; k < 3; k++) {
      const which = (r + k) % 3
      const t = cpuNow()
      sink += runs[which]!()
      times[which]!.push(Math.max(cpuNow() - t, 0.001))
    }
  const [today, previous, scan] = times
  const best = (ms: readonly number[]) => rate(text.length, Math.min(...ms))
  const ratio = (a: readonly number[], b: readonly number[]) => median(a.map((t, r) => b[r]! / t))
  return {
    stream: name,
    size: text.length,
    chunk: chunkSize,
    rounds,
    today: best(today),
    release: best(previous),
    floor: best(scan),
    todayOverRelease: ratio(today, previous),
    todayOverFloor: ratio(today, scan),
    releaseOverFloor: ratio(previous, scan),
  }
}

interface FormatRow {
  readonly format: FormatId
  readonly rate: number
  readonly median: number
  readonly limit: number
}

interface NaiveRow {
  readonly stream: string
  readonly detector: number
  readonly naive: number
}

/**
 * One measurement, run in a process of its own ({@link isolated}): a throughput row (every
 * contender of it in that process), a format's partial markers, a naive-rescan row, the scaling
 * ratio, or the memory row.
 */
type Job =
  | { readonly kind: "stream"; readonly name: string; readonly chunk: number }
  | { readonly kind: "release"; readonly name: string; readonly chunk: number }
  | { readonly kind: "format"; readonly format: FormatId }
  | { readonly kind: "naive"; readonly name: string }
  | { readonly kind: "scaling" }
  | { readonly kind: "memory" }

/** The stream a job names: realistic or hostile. */
function streamNamed(name: string): string {
  if (name === RELEASE_DENSE) return dense(4 * MB)
  const found = [...realistic(), ...hostile(1 * MB)].find(([n]) => n === name)
  if (found === undefined) throw new Error(`bench: no stream ${name}`)
  return found[1]
}

async function runJob(job: Job): Promise<unknown> {
  switch (job.kind) {
    case "stream": {
      const hostileRow = job.name.startsWith("hostile")
      const runs = job.chunk === CHUNK_SMALL ? 9 : 21
      return measureStream(
        job.name,
        streamNamed(job.name),
        job.chunk,
        runs,
        hostileRow ? HOSTILE_PARSER_BUDGET_MS : PARSER_BUDGET_MS,
      )
    }
    case "release": {
      // 1 MB hostile streams at 4-character deltas: the previous release ran some at 1 MB/s.
      const rounds = job.name.startsWith("hostile") ? 5 : job.chunk === CHUNK_SMALL ? 9 : 21
      return releaseRow(job.name, streamNamed(job.name), job.chunk, rounds)
    }
    case "format": {
      const text = partialMarkers(markersOf(job.format), 200 * KB)
      const chunks = chunk(text, CHUNK_SMALL)
      // Timed before the chunking check, not after: one 200 KB push before the 4-character ones left
      // the Step3 row ~20% slower (six processes each way), V8's code shaped by an input unlike the row's.
      const t = await timing(() => detector(chunks), 5, 1, false, FORMAT_WINDOW_MS)
      const limitMs = await time(() => limit(text), 9, 2, false, FORMAT_WINDOW_MS)
      if (detector(chunks) !== detector([text]))
        throw new Error(`bench: ${job.format} partial markers: detector results differ by chunking`)
      const row: FormatRow = {
        format: job.format,
        rate: rate(text.length, t.min),
        median: rate(text.length, t.median),
        limit: rate(text.length, limitMs),
      }
      return row
    }
    case "naive": {
      // 100 KB streams (it is quadratic: 1 MB at 4-character deltas would take minutes).
      const small = streamNamed(job.name).slice(0, 100 * KB)
      const chunks = chunk(small, CHUNK_SMALL)
      log(`${job.name}, naive rescan`)
      const detectorMs = await time(() => detector(chunks), 9)
      const naiveMs = await time(() => naive(chunks), 3, 1)
      const row: NaiveRow = {
        stream: job.name,
        detector: rate(small.length, detectorMs),
        naive: rate(small.length, naiveMs),
      }
      return row
    }
    case "scaling": {
      log("10 MB / 1 MB")
      // Deltas are sliced on the fly: 2.6 million pre-cut strings would make the 10 MB heap (and its GC) the measure.
      const one = dense(1 * MB, 7)
      const ten = dense(10 * MB, 7)
      const oneMs = await time(() => detectorSliced(one, CHUNK_SMALL), 7, 2, true)
      const tenMs = await time(() => detectorSliced(ten, CHUNK_SMALL), 5, 1, true)
      return tenMs / oneMs
    }
    case "memory":
      return retainedPerDetector(10_000) ?? null
    default:
      return job satisfies never
  }
}

/**
 * Set in a child process: the job it runs (JSON). Also a way to run one row alone while working
 * on the detector (it prints the row as JSON), e.g. dense Markdown at 4-character deltas beside
 * the previous release and the floor:
 *
 *   cd bench && TOOL_RESCUE_DETECTOR_BENCH_JOB='{"kind":"release","name":"dense Markdown (`<`, backticks, HTML, fences), 4 MB","chunk":4}' \
 *     ../node_modules/.bin/node --expose-gc src/detector.bench.ts
 *
 * (after `pnpm turbo run build`: today's detector is its built `dist`, as users run it)
 */
const JOB_ENV = "TOOL_RESCUE_DETECTOR_BENCH_JOB"

/**
 * Runs `job` in a fresh Node process (this file, with this process's flags) and returns what it
 * measured. Each row gets a process of its own: in one process the code a row runs depends on the
 * rows before it (after fullwidth or backtick-heavy text V8 has reshaped strings and deoptimised
 * paths, and ASCII prose then ran 2× slower), so the row order decided which stream was "the
 * slowest". Every contender of a row runs in the row's process, warmed up on the row's own input.
 */
function isolated<T>(job: Job): T {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, [JOB_ENV]: JSON.stringify(job) },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 20,
  })
  if (child.status !== 0) throw new Error(`bench: ${JSON.stringify(job)} exited with ${child.status}`)
  return JSON.parse(child.stdout) as T
}

async function benchDetector(): Promise<string> {
  const loadBefore = loadavg()[0]!
  const streams = realistic()
  const rows: Row[] = []
  for (const [name] of streams) {
    for (const size of [CHUNK_SMALL, CHUNK_LARGE])
      rows.push(isolated<Row>({ kind: "stream", name, chunk: size }))
  }
  // Hostile streams: what makes a scanner hold text and read it again on every delta (4-character deltas).
  const hostileNames = hostile(1 * MB).map(([name]) => name)
  for (const name of hostileNames) rows.push(isolated<Row>({ kind: "stream", name, chunk: CHUNK_SMALL }))

  // Repeated partial markers, one stream per format, in two passes over the formats (a process per
  // format and pass); each row is the faster of its two processes. With one pass, a neighbour busy
  // through a row's one timing window halved scattered rows of a run (Step3 21 → 11 MB/s, OLMo 3 32 → 15
  // from one run to the next on the same streams, the detector as fast on them alone, every other table
  // unchanged); the second pass comes minutes after the first.
  log("partial markers per format")
  const passes = [1, 2].map(() => FORMATS.map((format) => isolated<FormatRow>({ kind: "format", format })))
  const formatRows = FORMATS.map((_, i) =>
    passes.map((pass) => pass[i]!).reduce((a, b) => (b.rate > a.rate ? b : a)),
  )

  // Naive rescan: the first 100 KB of each stream.
  const naiveRows = [...streams.map(([name]) => name), ...hostileNames].map((name) =>
    isolated<NaiveRow>({ kind: "naive", name }),
  )

  // Scaling: 10 MB against 1 MB, same kind of text, same deltas.
  const ratio = isolated<number>({ kind: "scaling" })
  const heap = isolated<number | null>({ kind: "memory" }) ?? undefined

  // The previous release beside today's, built once for every row process.
  process.env[RELEASE_ENV] ??= await buildFromGit("detector", RELEASE)
  const isHostile = (r: { stream: string }): boolean => r.stream.startsWith("hostile")
  const releaseRows = [
    ...[CHUNK_LARGE, CHUNK_SMALL].map((size) =>
      isolated<ReleaseRow>({ kind: "release", name: RELEASE_DENSE, chunk: size }),
    ),
    // Prose and a leaked call beside the previous release too: a change that speeds one stream
    // must not slow another unseen.
    ...[RELEASE_PROSE, RELEASE_LEAK, ...hostileNames].map((name) =>
      isolated<ReleaseRow>({ kind: "release", name, chunk: CHUNK_SMALL }),
    ),
  ]
  const releaseDense = (size: number): ReleaseRow =>
    releaseRows.find((r) => r.stream === RELEASE_DENSE && r.chunk === size)!
  const largeRelease = releaseDense(CHUNK_LARGE)
  const smallRelease = releaseDense(CHUNK_SMALL)
  const slowestHostile = releaseRows.filter(isHostile).reduce((a, b) => (b.today < a.today ? b : a))

  const smallRows = rows.filter((r) => r.chunk === CHUNK_SMALL && !isHostile(r))
  const minHostile = Math.min(
    ...rows.filter(isHostile).map((r) => r.detector),
    ...formatRows.map((r) => r.rate),
  )
  const slowestFormat = formatRows.reduce((a, b) => (b.rate < a.rate ? b : a))
  const largeRows = rows.filter((r) => r.chunk === CHUNK_LARGE)
  const minSmall = Math.min(...smallRows.map((r) => r.detector))
  const minOfLimit = Math.min(...largeRows.map((r) => r.detector / r.limit))
  const minNaive = Math.min(...naiveRows.filter((r) => !isHostile(r)).map((r) => r.detector / r.naive))
  const minParser = Math.min(...rows.map((r) => r.detector / r.parser))
  const check = (ok: boolean): string => (ok ? "yes" : "**no**")

  const lines = [
    "# Detector benchmark",
    "",
    `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${cpus()} (${availableParallelism()} cores, shared;`,
    `load average ${fmt(loadBefore, 1)} when the run began, ${fmt(loadavg()[0]!, 1)} when it ended: on a loaded machine, read the ratios first).`,
    "Each figure is the fastest of many timed runs after warm-up, in CPU time of the process (every contender",
    "timed the same way: on a shared machine wall time measures the neighbours); the detector's median is shown beside it. `@ai-sdk-tool/parser` at 4-character deltas gets one run, capped in time.",
    "One full GC after warm-up, none between timed runs (one before each made a run that allocates pay for regrowing the young generation), but before each run of the 10 MB / 1 MB ratio.",
    "Each row runs in a fresh Node process of its own, every contender of the row in it, warmed up on the row's own input: in one",
    "process the rows before a row changed what it ran (after fullwidth or backtick-heavy text ASCII prose ran up to 2× slower).",
    "MB = 10^6 characters (the streams are ASCII). `limit`: one pass of a character-class scan for the",
    `detector's trigger characters (${JSON.stringify(TRIGGERS)}). \`parser\`: \`@ai-sdk-tool/parser\` 4.1.26`,
    "`qwen3CoderProtocol().createStreamParser` (the transform inside its `qwen3CoderToolMiddleware`) on the same",
    "deltas; `detector (stream)`: the detector behind the same kind of `TransformStream`, like for like.",
    "",
    "## Throughput",
    "",
    "| stream | size | deltas | detector | (median) | parser | detector ÷ parser | detector (stream) | limit | detector ÷ limit |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.stream} | ${fmt(r.size / KB)} KB | ${r.chunk === CHUNK_SMALL ? "4 chars" : "64 KiB"} | ${mbps(r.detector)} | ${mbps(r.detectorMedian)} | ${r.parserShare < 1 ? `${mbps(r.parser)}*` : mbps(r.parser)} | ${fmt(r.detector / r.parser, 1)}× | ${mbps(r.detectorStream)} | ${mbps(r.limit)} | ${fmt((100 * r.detector) / r.limit)}% |`,
    ),
    ...(rows.some((r) => r.parserShare < 1)
      ? [
          "",
          `\\* did not finish within ${PARSER_BUDGET_MS / 1000} s (it re-scans its growing buffer, quadratic once it has`,
          "taken a quoted `<tool_call>` for a call or while a parameter is open); the rate is over the part it consumed:",
          ...rows
            .filter((r) => r.parserShare < 1)
            .map(
              (r) =>
                `${r.stream} at ${r.chunk === CHUNK_SMALL ? "4 chars" : "64 KiB"}: ${fmt(100 * r.parserShare, 1)}% of the stream.`,
            ),
        ]
      : []),
    "",
    "Hostile streams (issue 13), 4-character deltas only, `@ai-sdk-tool/parser` capped at",
    `${HOSTILE_PARSER_BUDGET_MS / 1000} s: one backtick run; backtick runs of every length from 1 up; a \`<\` flood;`,
    "a flood of fullwidth bars; every proper prefix of every marker with a fullwidth bar, repeated; fences",
    "inside fences; every proper prefix of every marker of every format, repeated.",
    "",
    "## Repeated partial markers, per format (200 KB, 4-character deltas)",
    "",
    "Every proper prefix of each of the format's markers (openers, body tags, closers, special tokens, its",
    "reasoning blocks), eight times each, then the whole marker eight times; the stream cycles through them.",
    "Each row is the faster of two processes of its own, one per pass over the formats (minutes apart: a neighbour",
    "busy through one row's timing window once halved scattered rows), each timing the detector for a second after",
    "warm-up on the row's 4-character deltas; the check that one 200 KB push gives the same result runs after the timing.",
    "",
    "| format | detector | (median) | limit | detector ÷ limit |",
    "|---|---:|---:|---:|---:|",
    ...formatRows.map(
      (r) =>
        `| ${r.format} | ${mbps(r.rate)} | ${mbps(r.median)} | ${mbps(r.limit)} | ${fmt((100 * r.rate) / r.limit)}% |`,
    ),
    "",
    "## Against the naive rescan (first 100 KB of each stream, 4-character deltas)",
    "",
    "The naive contender re-scans the accumulated text with `indexOf` for the six Qwen3-Coder literals on every",
    "delta and holds back a partial opener (vLLM's legacy `qwen3_coder` per-delta work, without any parsing).",
    "",
    "| stream | detector | naive rescan | detector ÷ naive |",
    "|---|---:|---:|---:|",
    ...naiveRows.map(
      (r) => `| ${r.stream} | ${mbps(r.detector)} | ${mbps(r.naive)} | ${fmt(r.detector / r.naive)}× |`,
    ),
    "",
    `## Against the previous release (${RELEASE})`,
    "",
    `Today's detector, the previous release's (commit ${RELEASE}, \`packages/detector/src\` built from git at run time into`,
    "`bench/node_modules/.cache`) and the floor — one pass of a global regular expression over the characters the",
    `detector's prose scan starts at (${JSON.stringify(floorChars().source)}) — on the same text in the same process, round`,
    "after round (the order rotating; two warm-up rounds, then one full GC). Rates: the fastest round of each; ratios:",
    "the median of the rounds' ratios (the machine's load hits the three of a round alike).",
    "",
    `| stream | size | deltas | rounds | today | ${RELEASE} | floor | today ÷ ${RELEASE} | today ÷ floor | ${RELEASE} ÷ floor |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...releaseRows.map(
      (r) =>
        `| ${r.stream} | ${fmt(r.size / KB)} KB | ${r.chunk === CHUNK_SMALL ? "4 chars" : "64 KiB"} | ${r.rounds} | ${mbps(r.today)} | ${mbps(r.release)} | ${mbps(r.floor)} | ${fmt(r.todayOverRelease, 2)}× | ${fmt(100 * r.todayOverFloor)}% | ${fmt(100 * r.releaseOverFloor)}% |`,
    ),
    "",
    "## Scaling and memory",
    "",
    "| measure | value |",
    "|---|---:|",
    `| time for 10 MB ÷ time for 1 MB (dense prose, 4-char deltas) | ${fmt(ratio, 2)} |`,
    `| retained heap per live idle detector (10,000 live, after one delta each) | ${heap === undefined ? "n/a (run node with --expose-gc)" : `${fmt(heap)} bytes`} |`,
    "",
    "## Targets (issue 3)",
    "",
    "| target | measured | met |",
    "|---|---:|---|",
    `| ≥ 50 MB/s at 4-character deltas (slowest realistic stream) | ${mbps(minSmall)} | ${check(minSmall >= 50)} |`,
    `| ≥ 50% of the limit at 64 KiB chunks (worst stream) | ${fmt(100 * minOfLimit)}% | ${check(minOfLimit >= 0.5)} |`,
    `| ≥ 100× the naive approach on a 100 KB stream (worst realistic stream) | ${fmt(minNaive)}× | ${check(minNaive >= 100)} |`,
    `| ≥ 10 MB/s on every hostile stream at 4-character deltas (issue 13; slowest, incl. per format: ${slowestFormat.format} ${mbps(slowestFormat.rate)}) | ${mbps(minHostile)} | ${check(minHostile >= 10)} |`,
    `| faster than \`@ai-sdk-tool/parser\` (worst case) | ${fmt(minParser, 1)}× | ${check(minParser > 1)} |`,
    `| ≤ 2 KB retained per idle detector | ${heap === undefined ? "n/a" : `${fmt(heap)} bytes`} | ${heap === undefined ? "n/a" : check(heap <= 2048)} |`,
    `| 10 MB / 1 MB time ratio ≤ 11 | ${fmt(ratio, 2)} | ${check(ratio <= 11)} |`,
    "",
    "## Targets (issue 27)",
    "",
    "| target | measured | met |",
    "|---|---:|---|",
    `| dense Markdown at 64 KiB chunks ≥ 70% of the floor (same process) | ${fmt(100 * largeRelease.todayOverFloor)}% (${RELEASE}: ${fmt(100 * largeRelease.releaseOverFloor)}%) | ${check(largeRelease.todayOverFloor >= 0.7)} |`,
    `| dense Markdown at 4-character deltas ≥ 100 MB/s | ${mbps(smallRelease.today)} (${RELEASE}: ${mbps(smallRelease.release)}) | ${check(smallRelease.today >= 100)} |`,
    `| every hostile stream ≥ 15 MB/s at 4-character deltas (slowest: ${slowestHostile.stream.replace("hostile: ", "")}) | ${mbps(slowestHostile.today)} (${RELEASE}: ${mbps(slowestHostile.release)}) | ${check(slowestHostile.today >= 15)} |`,
    `| ≤ 1 KB retained per idle detector | ${heap === undefined ? "n/a" : `${fmt(heap)} bytes`} | ${heap === undefined ? "n/a" : check(heap <= 1000)} |`,
    `| linear: 10 MB / 1 MB time ratio ≤ 11 | ${fmt(ratio, 2)} | ${check(ratio <= 11)} |`,
  ]
  if (sink === -1) lines.push("")
  return lines.join("\n")
}

const job = process.env[JOB_ENV]
if (job === undefined) registerSuite({ name: "detector", run: benchDetector })
else process.stdout.write(JSON.stringify(await runJob(JSON.parse(job) as Job)))
