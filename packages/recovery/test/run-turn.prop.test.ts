/**
 * Properties of runTurn (issue 5) over generated turns: scripts of attempts mixing clean prose,
 * leaks in every format (in answer text or in reasoning), structured calls, other parts, provider
 * errors, aborts at any point, consumer breaks, persistence failures, and any chunking of the
 * text into deltas (including splits inside markers and inside surrogate pairs).
 */
import fc from "fast-check"
import { expect, test, vi } from "vitest"
import {
  type NormalizedPart,
  type OutputPart,
  type RecoveryEvent,
  runTurn,
  ToolCallRecoveryError,
} from "../src/index.ts"
import { ALL_MARKERS, LEAK_FORMATS } from "./support/leaks.ts"

vi.mock("@tool-rescue/detector", () => import("./support/fake-detector.ts"))

const TOOLS = ["read_file", "bash"]
const NOT_OFFERED = "launch_rockets"

type Channel = "text" | "reasoning"
type Segment =
  | { readonly kind: "prose"; readonly channel: Channel; readonly text: string }
  | {
      readonly kind: "leak"
      readonly channel: Channel
      readonly format: number
      readonly tool: string
      readonly value: string
    }
  | { readonly kind: "call"; readonly tool: string }
  | { readonly kind: "other" }

interface AttemptSpec {
  readonly segments: readonly Segment[]
  /** Cut points for each segment's text (taken modulo its length + 1). */
  readonly cuts: readonly (readonly number[])[]
  readonly ending: "finish" | "finish-then-other" | "error"
  /** The provider throws its own error once the signal is aborted (else it ignores the signal). */
  readonly respectsSignal: boolean
}

type Persist = "ok" | "throw" | "reject" | "abort"

interface TurnSpec {
  readonly attempts: readonly AttemptSpec[]
  readonly maxRecoveries: number
  readonly persist: readonly Persist[]
  /** Abort the turn's signal when the consumer receives the part with this index, or the first attempt-start. */
  readonly abortAt: number | "attempt-start" | undefined
  /** Stop reading (a consumer `break`) at the part with this index. */
  readonly breakAt: number | undefined
}

// Prose never forms markup: no backticks (they would make a leak an inline-code example), no
// `<tool`/`<function`. It does hold characters markers start with, and a surrogate pair.
const prose = fc
  .array(
    fc.constantFrom(
      "The ",
      "file ",
      "is ready",
      ". ",
      "\n",
      " ",
      "a < b ",
      "x",
      "é",
      "😀",
      "tool ",
      "func",
      "> ",
    ),
    {
      minLength: 1,
      maxLength: 8,
    },
  )
  .map((pieces) => pieces.join(""))

const channel = fc.constantFrom<Channel>("text", "text", "reasoning")

const segment: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("prose" as const), channel, text: prose }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("leak" as const),
      channel,
      format: fc.nat({ max: LEAK_FORMATS.length - 1 }),
      tool: fc.constantFrom(...TOOLS, NOT_OFFERED),
      value: fc.stringMatching(/^[a-z./]{1,12}$/),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("call" as const),
      tool: fc.constantFrom(...TOOLS, NOT_OFFERED),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "other" as const }) },
)

const attemptSpec: fc.Arbitrary<AttemptSpec> = fc.array(segment, { maxLength: 6 }).chain((segments) =>
  fc.record({
    segments: fc.constant(segments),
    cuts: fc.tuple(...segments.map(() => fc.array(fc.nat({ max: 400 }), { maxLength: 5 }))),
    ending: fc.constantFrom<AttemptSpec["ending"]>(
      "finish",
      "finish",
      "finish",
      "finish-then-other",
      "error",
    ),
    respectsSignal: fc.boolean(),
  }),
)

const turnSpec: fc.Arbitrary<TurnSpec> = fc.record({
  attempts: fc.array(attemptSpec, { minLength: 1, maxLength: 4 }),
  maxRecoveries: fc.nat({ max: 2 }),
  persist: fc.array(fc.constantFrom<Persist>("ok", "ok", "ok", "throw", "reject", "abort"), {
    minLength: 3,
    maxLength: 3,
  }),
  abortAt: fc.option(fc.oneof(fc.nat({ max: 30 }), fc.constant("attempt-start" as const)), {
    nil: undefined,
    freq: 4,
  }),
  breakAt: fc.option(fc.nat({ max: 30 }), { nil: undefined, freq: 4 }),
})

function segmentText(s: Segment): string {
  if (s.kind === "prose") return s.text
  if (s.kind === "leak") return LEAK_FORMATS[s.format]!.build(s.tool, s.value)
  return ""
}

function split(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const pieces: string[] = []
  let at = 0
  for (const p of points) {
    pieces.push(text.slice(at, p))
    at = p
  }
  pieces.push(text.slice(at))
  return pieces
}

/** The parts of attempt `round`, with unique ids and raws so the output can be traced back. */
function partsOf(spec: AttemptSpec, round: number): NormalizedPart<string>[] {
  const parts: NormalizedPart<string>[] = []
  spec.segments.forEach((s, i) => {
    if (s.kind === "call") {
      parts.push({ type: "tool-call", toolName: s.tool, params: `{"n":${i}}`, raw: `call:${round}:${i}` })
    } else if (s.kind === "other") {
      parts.push({ type: "other", raw: `other:${round}:${i}` })
    } else {
      for (const [j, piece] of split(segmentText(s), spec.cuts[i] ?? []).entries()) {
        parts.push({ type: s.channel, text: piece, id: `${round}:${i}:${j}` })
      }
    }
  })
  if (spec.ending !== "error") parts.push({ type: "finish", raw: `finish:${round}` })
  if (spec.ending === "finish-then-other") parts.push({ type: "other", raw: `after:${round}` })
  return parts
}

/** The oracle of the policy (DESIGN.md) for the generated leaks. */
function recoverable(spec: AttemptSpec): boolean {
  return spec.segments.some((s, i) => {
    if (s.kind !== "leak" || !TOOLS.includes(s.tool)) return false
    if (s.channel === "text") return true
    // reasoning: "auto" recovers unless visible answer text follows.
    return !spec.segments
      .slice(i + 1)
      .some((t) => t.kind === "prose" && t.channel === "text" && /\S/.test(t.text))
  })
}
const hasCall = (spec: AttemptSpec) => spec.segments.some((s) => s.kind === "call")

/** The text each channel should show: the prose, in order, nothing else. */
function expectedVisible(spec: AttemptSpec, ch: Channel): string {
  return spec.segments
    .filter((s) => s.kind === "prose" && s.channel === ch)
    .map(segmentText)
    .join("")
}

interface Observed {
  readonly output: OutputPart<string>[]
  readonly events: RecoveryEvent[]
  /** Per attempt started: its round, the parts it produced, when it started. */
  readonly attempts: {
    round: number
    produced: NormalizedPart<string>[]
    startedAt: number
    completed: boolean
  }[]
  readonly providerErrors: Map<number, Error>
  readonly providerAborts: Error[]
  persistCalls: number
  abortedAt: number | undefined
  broke: boolean
  error: unknown
  threw: boolean
}

async function execute(spec: TurnSpec): Promise<Observed> {
  const controller = new AbortController()
  const abortReason = new Error("user abort")
  let clock = 0
  const observed: Observed = {
    output: [],
    events: [],
    attempts: [],
    providerErrors: new Map(),
    providerAborts: [],
    persistCalls: 0,
    abortedAt: undefined,
    broke: false,
    error: undefined,
    threw: false,
  }
  const abort = () => {
    if (observed.abortedAt === undefined) observed.abortedAt = ++clock
    controller.abort(abortReason)
  }
  const attempt = (round: number, context: { signal: AbortSignal }) => {
    const spec_ = spec.attempts[Math.min(round, spec.attempts.length - 1)]!
    const record = { round, produced: [] as NormalizedPart<string>[], startedAt: ++clock, completed: false }
    observed.attempts.push(record)
    const parts = partsOf(spec_, round)
    return (async function* () {
      for (const part of parts) {
        if (spec_.respectsSignal && context.signal.aborted) {
          const e = new Error("provider saw the abort")
          observed.providerAborts.push(e)
          throw e
        }
        record.produced.push(part)
        yield part
      }
      if (spec_.ending === "error") {
        const e = new Error(`provider error in round ${round}`)
        observed.providerErrors.set(round, e)
        throw e
      }
      record.completed = true
    })()
  }
  try {
    for await (const part of runTurn<string>({
      tools: TOOLS,
      attempt,
      signal: controller.signal,
      options: {
        maxRecoveries: spec.maxRecoveries,
        onEvent: (event) => observed.events.push(event),
        persistFailed: async (failed) => {
          const outcome = spec.persist[failed.round] ?? "ok"
          observed.persistCalls++
          if (outcome === "throw") throw new Error("persist threw")
          if (outcome === "reject") return Promise.reject(new Error("persist rejected"))
          if (outcome === "abort") abort()
        },
      },
    })) {
      const index = observed.output.length
      observed.output.push(part)
      if (index === spec.abortAt || (part.type === "attempt-start" && spec.abortAt === "attempt-start"))
        abort()
      if (index === spec.breakAt) {
        observed.broke = true
        break
      }
    }
  } catch (error) {
    observed.error = error
    observed.threw = true
  }
  return observed
}

/** Output split at attempt-start parts: one slice per attempt. */
function perAttempt(output: readonly OutputPart<string>[]): OutputPart<string>[][] {
  const slices: OutputPart<string>[][] = [[]]
  for (const part of output) {
    if (part.type === "attempt-start") slices.push([])
    else slices.at(-1)!.push(part)
  }
  return slices
}

function visibleOf(parts: readonly OutputPart<string>[], ch: Channel): string {
  return parts.map((p) => (p.type === ch ? p.text : "")).join("")
}

/** Output tokens (characters with their part id, or whole parts) form a subsequence of the input's. */
function isOrderedSubsequence(
  output: readonly OutputPart<string>[],
  input: readonly NormalizedPart<string>[],
): boolean {
  type Token = string | NormalizedPart<string>
  const tokens = (parts: readonly OutputPart<string>[]): Token[] =>
    parts.flatMap((p): Token[] =>
      p.type === "text" || p.type === "reasoning"
        ? [...p.text].map((c) => `${p.type}|${p.id}|${c}`)
        : [p as Token],
    )
  const want = tokens(output)
  const have = tokens(input)
  let j = 0
  for (const t of want) {
    while (j < have.length && have[j] !== t) j++
    if (j === have.length) return false
    j++
  }
  return true
}

test("runTurn: bounded, never leaks markup, never builds calls from text, honours aborts and persistence", async () => {
  await fc.assert(
    fc.asyncProperty(turnSpec, async (spec) => {
      const o = await execute(spec)
      const slices = perAttempt(o.output)
      const specOf = (round: number) => spec.attempts[Math.min(round, spec.attempts.length - 1)]!

      // Attempts ≤ 1 + maxRecoveries; rounds are 0, 1, 2, … and each retry announced once.
      expect(o.attempts.length).toBeLessThanOrEqual(1 + spec.maxRecoveries)
      expect(o.attempts.map((a) => a.round)).toEqual(o.attempts.map((_, i) => i))
      expect(slices.length).toBeLessThanOrEqual(o.attempts.length + 1)

      // No markup text ever reaches the consumer, even across part boundaries.
      for (const slice of slices) {
        for (const ch of ["text", "reasoning"] as const) {
          const shown = visibleOf(slice, ch)
          for (const marker of ALL_MARKERS) expect(shown).not.toContain(marker)
        }
      }

      // No tool call is ever built from text: every tool-call (indeed every non-text) part is the
      // very object the provider produced.
      const produced = new Set(o.attempts.flatMap((a) => a.produced))
      for (const part of o.output) {
        if (part.type !== "attempt-start" && part.type !== "text" && part.type !== "reasoning") {
          expect(produced.has(part)).toBe(true)
        }
      }

      // Each attempt's output is its input minus withheld text, in order, text kept with its part.
      for (const [i, slice] of slices.entries()) {
        const record = o.attempts[i]
        if (record === undefined) expect(slice).toEqual([])
        else expect(isOrderedSubsequence(slice, record.produced)).toBe(true)
      }

      // A retry only follows a complete, malformed attempt with no structured call, a successful
      // persistence, and no abort or break.
      for (const next of o.attempts.slice(1)) {
        const previous = o.attempts[next.round - 1]!
        const prevSpec = specOf(previous.round)
        expect(previous.completed).toBe(true)
        expect(hasCall(prevSpec)).toBe(false)
        expect(recoverable(prevSpec)).toBe(true)
        expect(spec.persist[previous.round] ?? "ok").toBe("ok")
        if (o.abortedAt !== undefined) expect(next.startedAt).toBeLessThan(o.abortedAt)
      }
      // persistFailed runs once per retry decision, and only then.
      const failedPersist =
        o.threw && ToolCallRecoveryError.isInstance(o.error) && o.error.code === "persist-failed"
      const extraPersist = o.persistCalls - (o.attempts.length - 1)
      expect([0, 1]).toContain(extraPersist)
      if (failedPersist) expect(extraPersist).toBe(1)
      // recovery-started precedes each persistence (and so each retry).
      expect(o.events.filter((e) => e.type === "recovery-started")).toHaveLength(o.persistCalls)

      // A completed attempt shows exactly its prose, per channel.
      for (const [i, record] of o.attempts.entries()) {
        if (!record.completed) continue
        const slice = slices[i] ?? []
        for (const ch of ["text", "reasoning"] as const)
          expect(visibleOf(slice, ch)).toBe(expectedVisible(specOf(i), ch))
      }

      // Without interference, the outcome is exactly the policy's.
      if (o.abortedAt === undefined && !o.broke) {
        for (let round = 0; ; round++) {
          const a = specOf(round)
          expect(o.attempts.length).toBeGreaterThan(round)
          if (a.ending === "error") {
            expect(o.error).toBe(o.providerErrors.get(round))
            expect(o.attempts).toHaveLength(round + 1)
            break
          }
          if (!recoverable(a) || hasCall(a)) {
            expect(o.threw).toBe(false)
            expect(o.attempts).toHaveLength(round + 1)
            // The finish part (and anything after it) arrives last, once.
            const last = slices.at(-1)!
            const tail = a.ending === "finish-then-other" ? ["finish", "other"] : ["finish"]
            expect(last.slice(-tail.length).map((p) => p.type)).toEqual(tail)
            if (round === 0 && !a.segments.some((s) => s.kind === "leak")) {
              // A clean response passes through byte for byte: the same text in each channel (a
              // held-back marker prefix may split a delta in two, never change it), and the very
              // same non-text parts in the same order.
              const input = record0(o)
              for (const ch of ["text", "reasoning"] as const)
                expect(visibleOf(o.output, ch)).toBe(visibleOf(input, ch))
              const nonText = (parts: readonly OutputPart<string>[]) =>
                parts.filter((p) => p.type !== "text" && p.type !== "reasoning")
              expect(nonText(o.output)).toHaveLength(nonText(input).length)
              for (const [k, p] of nonText(o.output).entries()) expect(p).toBe(nonText(input)[k])
            }
            break
          }
          if (round >= spec.maxRecoveries) {
            expect(ToolCallRecoveryError.isInstance(o.error) && o.error.code).toBe("repeated-markup")
            expect((o.error as ToolCallRecoveryError).rounds).toBe(round + 1)
            expect(o.attempts).toHaveLength(round + 1)
            break
          }
          const persist = spec.persist[round] ?? "ok"
          if (persist === "throw" || persist === "reject") {
            expect(ToolCallRecoveryError.isInstance(o.error) && o.error.code).toBe("persist-failed")
            expect(o.attempts).toHaveLength(round + 1)
            break
          }
          expect(persist).toBe("ok") // "abort" sets abortedAt
        }
      } else if (o.abortedAt !== undefined && !o.broke && o.threw) {
        // An abort ends with the provider's own error, the signal's reason, or code "aborted".
        const ok =
          o.providerAborts.includes(o.error as Error) ||
          (o.error instanceof Error && o.error.message === "user abort") ||
          (ToolCallRecoveryError.isInstance(o.error) && o.error.code === "aborted")
        expect(ok).toBe(true)
      } else if (o.broke) {
        // A consumer that stops reading ends the turn silently.
        expect(o.threw).toBe(false)
      }
    }),
  )
})

function record0(o: Observed): NormalizedPart<string>[] {
  return o.attempts[0]!.produced
}
