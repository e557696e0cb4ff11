/**
 * Properties of runTurn (issue 5) over generated turns: scripts of attempts mixing clean prose,
 * leaks in every format of FORMATS.md (from `@tool-rescue/testing`, labelled with what a correct
 * detector reports; in answer text or in reasoning), structured calls, other parts, provider
 * errors, aborts at any point, consumer breaks, persistence failures, and any chunking of the
 * text into deltas (including splits inside markers and inside surrogate pairs).
 *
 * "No markup reaches the consumer" is checked exactly: what each channel shows is a prefix of
 * its prose (the prose itself once the attempt completed), so no character of a leak ever shows.
 */

import { isRecoverable, scan } from "@tool-rescue/detector"
import {
  type FailedResponse,
  type NormalizedPart,
  type OutputPart,
  type RecoveryEvent,
  recoverToolCalls,
  ToolCallRecoveryError,
} from "@tool-rescue/recovery"
import { chunked, leakedCall, prose as proseText, thinkingBlock } from "@tool-rescue/testing"
import fc from "fast-check"
import { expect, test } from "vitest"

const TOOLS = ["read_file", "bash"]

type Channel = "text" | "reasoning"
type Segment =
  | { readonly kind: "prose"; readonly channel: Channel; readonly text: string }
  | { readonly kind: "leak"; readonly channel: Channel; readonly text: string }
  | { readonly kind: "call"; readonly tool: string }
  | { readonly kind: "other" }

interface AttemptSpec {
  readonly segments: readonly Segment[]
  /** Each segment's text cut into deltas (the testing kit's `chunked`: cuts at marker characters, inside surrogate pairs, one-character runs). */
  readonly pieces: readonly (readonly string[])[]
  /**
   * `error-part`: a provider error reported inside the stream (a `failed` part), then the finish.
   * `cut`: the stream just ends, with no finish part (a connection closed early).
   */
  readonly ending: "finish" | "finish-then-other" | "error" | "error-part" | "cut"
  /** The provider throws its own error once the signal is aborted (else it ignores the signal). */
  readonly respectsSignal: boolean
}

type Persist = "ok" | "throw" | "reject" | "abort"

interface TurnSpec {
  readonly attempts: readonly AttemptSpec[]
  readonly maxRecoveries: number
  /** `finishRequired`: the protocol always ends a complete attempt with a finish part. */
  readonly finishRequired: boolean
  /** Recoveries earlier model calls of the user turn made (they count against maxRecoveries). */
  readonly recoveriesBefore: number
  readonly persist: readonly Persist[]
  /** Abort the turn's signal when the consumer receives the part with this index, or the first attempt-start. */
  readonly abortAt: number | "attempt-start" | undefined
  /** Stop reading (a consumer `break`) at the part with this index. */
  readonly breakAt: number | undefined
}

// Prose is the testing kit's hard prose (`<`, HTML, C++ includes, near-miss markers) without
// code spans: a backtick run in one segment could otherwise pair with one in a later segment and
// turn the leak between them into an inline-code example (which correctly stays text).
// Some prose ends with a marker prefix: when the stream then switches channel, the detector holds
// it until the run ends, which exercises the release of held text at a channel switch.
const prose = fc
  .tuple(
    proseText({ code: false, strays: false, maxSentences: 2 }),
    fc.constantFrom("", "", "", "<", "<tool_c", "[TOOL_CALL", "<｜tool▁calls", "]<]minimax[>["),
  )
  .map(([sample, dangling]) => sample.text + dangling)

// Leaks in every default format and variant that leaves the envelope closed (more text may
// follow), naming offered tools or hallucinated ones. Start-anchored formats are left out: they
// are evidence only at the very start of a response.
const leak = leakedCall({
  tools: TOOLS,
  closedOnly: true,
  unknownTools: true,
  anchored: "exclude",
  maxCalls: 2,
})

const channel = fc.constantFrom<Channel>("text", "text", "reasoning")

const segment: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("prose" as const), channel, text: prose }) },
  {
    weight: 3,
    arbitrary: fc
      .record({ kind: fc.constant("leak" as const), channel, sample: leak })
      .map(({ kind, channel, sample }): Segment => ({ kind, channel, text: sample.text })),
  },
  {
    // An inline reasoning block in the answer text (`<think>…</think>`), sometimes holding a
    // call: the detector reports such markup only once it knows whether an answer follows, after
    // it has released the reasoning text behind it (runTurn's aligned accounting path).
    weight: 1,
    arbitrary: thinkingBlock({ tools: TOOLS, call: "sometimes" }).map(
      (sample): Segment => ({ kind: "leak", channel: "text", text: sample.text }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("call" as const),
      tool: fc.constantFrom(...TOOLS, "delete_everything"),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "other" as const }) },
)

const attemptSpec: fc.Arbitrary<AttemptSpec> = fc.array(segment, { maxLength: 6 }).chain((segments) =>
  fc.record({
    segments: fc.constant(segments),
    pieces: fc.tuple(...segments.map((s) => chunked(segmentText(s)))),
    ending: fc.constantFrom<AttemptSpec["ending"]>(
      "finish",
      "finish",
      "finish",
      "finish-then-other",
      "error",
      "error-part",
      "cut",
    ),
    respectsSignal: fc.boolean(),
  }),
)

/** Retries this model call may make: the turn's budget minus what earlier calls of the turn spent. */
const budgetOf = (spec: TurnSpec): number => Math.max(0, spec.maxRecoveries - spec.recoveriesBefore)

const turnSpec: fc.Arbitrary<TurnSpec> = fc.record({
  attempts: fc.array(attemptSpec, { minLength: 1, maxLength: 4 }),
  maxRecoveries: fc.nat({ max: 2 }),
  finishRequired: fc.boolean(),
  recoveriesBefore: fc.oneof(fc.constant(0), fc.nat({ max: 3 })),
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
  return s.kind === "prose" || s.kind === "leak" ? s.text : ""
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
      for (const [j, piece] of (spec.pieces[i] ?? []).entries()) {
        parts.push({ type: s.channel, text: piece, id: `${round}:${i}:${j}` })
      }
    }
  })
  if (spec.ending === "error-part") parts.push({ type: "other", raw: `error:${round}`, failed: true })
  if (spec.ending !== "error" && spec.ending !== "cut") parts.push({ type: "finish", raw: `finish:${round}` })
  if (spec.ending === "finish-then-other") parts.push({ type: "other", raw: `after:${round}` })
  return parts
}

/**
 * The oracle: the detector run over each channel run of the attempt in one `scan` (runTurn feeds
 * it incrementally, part by part), and the policy applied to its markup. A run is a stretch of
 * same-channel text; runTurn ends a run when the stream switches channel.
 */
function oracle(spec: AttemptSpec): {
  visible: Record<Channel, string>
  recoverable: boolean
  /** Every markup, with offsets into its channel's whole text; reasoning first, then by start. */
  spans: { channel: Channel; start: number; end: number }[]
} {
  const runs: { channel: Channel; text: string }[] = []
  for (const s of spec.segments) {
    if (s.kind !== "prose" && s.kind !== "leak") continue
    const last = runs.at(-1)
    if (last?.channel === s.channel) last.text += s.text
    else runs.push({ channel: s.channel, text: s.text })
  }
  const visible: Record<Channel, string> = { text: "", reasoning: "" }
  const scanned = runs.map((run) => {
    const { text: shown, markup } = scan(run.text, { tools: TOOLS })
    return { channel: run.channel, shown, markup }
  })
  let recoverable = false
  const spans: { channel: Channel; start: number; end: number }[] = []
  const base: Record<Channel, number> = { text: 0, reasoning: 0 }
  scanned.forEach((run, k) => {
    visible[run.channel] += run.shown
    for (const m of run.markup) {
      spans.push({ channel: run.channel, start: base[run.channel] + m.start, end: base[run.channel] + m.end })
      const answered = scanned
        .slice(k + 1)
        .some((later) => later.channel === "text" && /\S/.test(later.shown))
      // Reasoning parts are reasoning by definition; inline reasoning (`<think>` in the text) that
      // ended with its run is answered by visible text in a later run too.
      const effective =
        run.channel === "reasoning"
          ? { ...m, inReasoning: true, answerFollows: answered }
          : m.inReasoning && !m.answerFollows && answered
            ? { ...m, answerFollows: true }
            : m
      if (isRecoverable(effective)) recoverable = true
    }
    base[run.channel] += runs[k]!.text.length
  })
  spans.sort((a, b) => (a.channel === b.channel ? a.start - b.start : a.channel === "reasoning" ? -1 : 1))
  return { visible, recoverable, spans }
}
const recoverable = (spec: AttemptSpec) => oracle(spec).recoverable
const hasCall = (spec: AttemptSpec) => spec.segments.some((s) => s.kind === "call")

/** The text each channel should show. */
const expectedVisible = (spec: AttemptSpec, ch: Channel) => oracle(spec).visible[ch]

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
  /** What persistFailed received, per call. */
  readonly failed: FailedResponse[]
  abortedAt: number | undefined
  broke: boolean
  error: unknown
  threw: boolean
}

async function execute(spec: TurnSpec, settlesOnAbort?: true): Promise<Observed> {
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
    failed: [],
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
    for await (const part of recoverToolCalls<string>({
      tools: TOOLS,
      attempt,
      signal: controller.signal,
      settlesOnAbort,
      recoveriesBefore: spec.recoveriesBefore,
      finishRequired: spec.finishRequired,
      options: {
        maxRecoveries: spec.maxRecoveries,
        onEvent: (event) => observed.events.push(event),
        persistFailed: async (failed) => {
          const outcome = spec.persist[failed.round] ?? "ok"
          observed.persistCalls++
          observed.failed.push(failed)
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

      // Attempts ≤ 1 + the budget left in the turn; rounds are 0, 1, 2, … and each retry announced once.
      expect(o.attempts.length).toBeLessThanOrEqual(1 + budgetOf(spec))
      expect(o.attempts.map((a) => a.round)).toEqual(o.attempts.map((_, i) => i))
      expect(slices.length).toBeLessThanOrEqual(o.attempts.length + 1)

      // runTurn shows exactly what the detector releases, nothing more: each channel shows a prefix
      // of what the detector releases over it (prose, and for a correct detector nothing of a leak
      // but the whitespace between its calls: see no-markup-shown.prop.test.ts).
      for (const [i, slice] of slices.entries()) {
        if (o.attempts[i] === undefined) continue
        for (const ch of ["text", "reasoning"] as const) {
          const shown = visibleOf(slice, ch)
          const prose = expectedVisible(specOf(i), ch)
          if (!prose.startsWith(shown)) expect(shown).toBe(prose.slice(0, shown.length))
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
        // A stream cut before its finish is a provider error when the protocol always sends one.
        if (spec.finishRequired) expect(prevSpec.ending).not.toBe("cut")
        expect(hasCall(prevSpec)).toBe(false)
        expect(recoverable(prevSpec)).toBe(true)
        expect(spec.persist[previous.round] ?? "ok").toBe("ok")
        if (o.abortedAt !== undefined) expect(next.startedAt).toBeLessThan(o.abortedAt)
      }
      // persistFailed runs once per retry decision (`retried`), and at most once more, for the
      // malformed response that ended the turn (`repeated`, `truncated`, `not-offered`).
      const failedPersist =
        o.threw && ToolCallRecoveryError.isInstance(o.error) && o.error.code === "persist-failed"
      const retried = o.failed.filter((failed) => failed.outcome === "retried")
      const extraPersist = retried.length - (o.attempts.length - 1)
      expect([0, 1]).toContain(extraPersist)
      if (failedPersist) expect(extraPersist).toBe(1)
      // recovery-started precedes each persistence before a retry (and so each retry).
      expect(o.events.filter((e) => e.type === "recovery-started")).toHaveLength(retried.length)
      const finals = o.failed.filter((failed) => failed.outcome !== "retried")
      expect(finals.length).toBeLessThanOrEqual(1)
      expect(o.persistCalls).toBe(retried.length + finals.length)
      // The turn ended on a second leak: its response is persisted too, with what became of it.
      const ended = o.threw && ToolCallRecoveryError.isInstance(o.error) ? o.error.code : undefined
      if (ended === "repeated-markup" || ended === "truncated-call")
        expect(finals.map((failed) => [failed.outcome, failed.round])).toEqual([
          [ended === "repeated-markup" ? "repeated" : "truncated", o.attempts.length - 1],
        ])
      for (const failed of o.failed) {
        expect(failed.rounds).toBe(failed.round + 1)
        expect(failed.tools).toEqual(TOOLS)
        expect(failed.format).toBe(failed.markup[0]?.format)
      }

      // Markup is reported with exactly the characters it withheld from its channel, and a failed
      // response holds the attempt's whole text and reasoning.
      const whole = (round: number, ch: Channel) => visibleOf(o.attempts[round]!.produced, ch)
      for (const e of o.events) {
        if (e.type === "markup-detected")
          expect(e.text).toBe(whole(e.round, e.channel).slice(e.markup.start, e.markup.end))
      }
      // Each markup of an attempt is reported once, reasoning first, each channel in stream order:
      // every attempt that reached its decision, and every completed one of an undisturbed turn.
      for (const [round, record] of o.attempts.entries()) {
        const reported = o.events.flatMap((e) =>
          e.type === "markup-detected" && e.round === round
            ? [{ channel: e.channel, start: e.markup.start, end: e.markup.end }]
            : [],
        )
        const undisturbed = record.completed && o.abortedAt === undefined && !o.broke
        if (reported.length > 0 || undisturbed) expect(reported).toEqual(oracle(specOf(round)).spans)
      }
      for (const failed of o.failed) {
        expect(failed.text).toBe(whole(failed.round, "text"))
        expect(failed.reasoning).toBe(whole(failed.round, "reasoning"))
      }

      // A completed attempt shows exactly what the detector releases over it, per channel (unless
      // the consumer stopped or aborted while it was still being shown).
      const interrupted = o.broke || o.abortedAt !== undefined
      for (const [i, record] of o.attempts.entries()) {
        if (!record.completed || (interrupted && i === o.attempts.length - 1)) continue
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
          // A provider error inside the stream is final: passed through, never retried; so is a
          // stream cut before the finish its protocol always sends.
          const cut = a.ending === "cut"
          if (!recoverable(a) || hasCall(a) || a.ending === "error-part" || (cut && spec.finishRequired)) {
            expect(o.threw).toBe(false)
            expect(o.attempts).toHaveLength(round + 1)
            // The finish part (and anything after it) arrives last, once; a cut stream has none.
            const last = slices.at(-1)!
            if (cut) expect(last.filter((p) => p.type === "finish")).toEqual([])
            const tail = cut
              ? []
              : a.ending === "finish-then-other"
                ? ["finish", "other"]
                : a.ending === "error-part"
                  ? ["other", "finish"]
                  : ["finish"]
            expect(last.slice(last.length - tail.length).map((p) => p.type)).toEqual(tail)
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
          if (round >= budgetOf(spec)) {
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
        // An abort ends with the provider's own error, the signal's reason, or code "aborted";
        // or, when it came after the last allowed attempt had ended malformed (no recovery left
        // to cancel), with that attempt's "repeated-markup".
        const ok =
          o.providerAborts.includes(o.error as Error) ||
          (o.error instanceof Error && o.error.message === "user abort") ||
          (ToolCallRecoveryError.isInstance(o.error) && o.error.code === "aborted") ||
          (ToolCallRecoveryError.isInstance(o.error) &&
            o.error.code === "repeated-markup" &&
            o.attempts.length === 1 + budgetOf(spec) &&
            o.attempts.at(-1)!.completed)
        expect(ok).toBe(true)
      } else if (o.broke) {
        // A consumer that stops reading ends the turn silently.
        expect(o.threw).toBe(false)
      }
    }),
  )
})

// Every attempt here settles at once (none waits), so `settlesOnAbort` is a promise it keeps:
// without the race per part, each turn must go exactly as the raced one, abort or not.
test("runTurn: with settlesOnAbort, every turn goes exactly as with the race per part", async () => {
  await fc.assert(
    fc.asyncProperty(turnSpec, async (spec) => {
      const raced = await execute(spec)
      const settled = await execute(spec, true)
      expect(observedTrace(settled)).toEqual(observedTrace(raced))
    }),
  )
})

/** Everything a turn did, comparable across runs (errors by what they say, not by identity). */
function observedTrace(o: Observed) {
  return {
    output: o.output,
    events: o.events,
    attempts: o.attempts,
    providerAborts: o.providerAborts.length,
    persistCalls: o.persistCalls,
    failed: o.failed,
    abortedAt: o.abortedAt,
    broke: o.broke,
    threw: o.threw,
    error: ToolCallRecoveryError.isInstance(o.error)
      ? { code: o.error.code, rounds: o.error.rounds, cause: String(o.error.cause) }
      : String(o.error),
  }
}

function record0(o: Observed): NormalizedPart<string>[] {
  return o.attempts[0]!.produced
}
