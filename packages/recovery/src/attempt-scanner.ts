import {
  createDetector,
  type Detector,
  type DetectorOptions,
  type DetectorResult,
  type FormatId,
  type Markup,
} from "@tool-rescue/detector"
import type { Channel, NormalizedPart, OutputPart } from "./types.ts"
import { classifyToolCall } from "./unknown-tool-calls.ts"

/**
 * Internal: the scanner of one attempt's part stream. It feeds text and reasoning parts to one
 * detector per channel and releases parts to `out` in exactly the order they arrived, minus the
 * withheld markup:
 *
 *   arrived:   text "Let me " | text "<tool_c" | other | text "all>…" | finish | …
 *   released:  text "Let me " | (held until the detector decides) …
 *
 * Every part sits in one FIFO queue. A text part leaves the queue when every one of its
 * characters is decided (released as visible text, or inside a withheld markup span); the
 * visible pieces of the part at the head leave as soon as they are released, so text is never
 * delayed beyond the detector's own hold-back. Non-text parts wait behind undecided text, so a
 * `text-end` can never overtake its last characters. A `finish` part is a barrier: it and
 * everything after it wait for the end-of-attempt decision (see {@link AttemptScanner.release}).
 *
 * Channels: text and reasoning parts go to separate detectors (a provider's separate reasoning
 * stream is not inside `<think>` in the text). When the stream switches channel, the previous
 * channel's run is ended (`end()`, flushing its held text) and its detector is reset: a call
 * never spans a switch, and held text must not block the other channel. Markup found in
 * reasoning parts is reported with `inReasoning: true`, and `answerFollows` is true when visible
 * non-whitespace answer text was released after that reasoning run.
 */
export interface AttemptScanner<Raw> {
  /**
   * Takes the next part of the attempt. What may be yielded now is either returned (the common
   * case: the part itself passes whole, nothing is queued) or appended to `out`.
   */
  push(part: NormalizedPart<Raw>, out: OutputPart<Raw>[]): NormalizedPart<Raw> | undefined
  /** The attempt's stream ended: flushes held text, appends everything before the barrier to `out`. */
  end(out: OutputPart<Raw>[]): AttemptReport<Raw>
  /** After `end()`, no retry: appends the barrier and everything after it to `out`. */
  release(out: OutputPart<Raw>[]): void
  /** Back to a fresh state for the next attempt. */
  reset(): void
  /**
   * Characters of the attempt's text the scanner keeps beyond the parts it has not released yet:
   * the withheld markup and, with `keepText`, the whole text. (What bounds a stream's memory.)
   */
  retained(): number
}

/** One markup of the attempt, with its channel and withheld text. */
export interface FoundMarkup {
  /** Offsets are into the channel's whole text for the attempt. */
  readonly markup: Markup
  readonly channel: Channel
  readonly text: string
}

/** What an attempt produced, for the end-of-attempt decision. */
export interface AttemptReport<Raw> {
  readonly markup: readonly FoundMarkup[]
  /** A structured tool-call part was seen. */
  readonly structuredCall: boolean
  /**
   * The full text (markup included) and reasoning, when the scanner was created with `keepText`
   * (else empty: a stream's memory stays the detector's hold-back and the withheld markup, not the
   * response).
   */
  readonly text: string
  readonly reasoning: string
  /** `raw` of the non-text parts held at the barrier (the finish part and anything after it). */
  readonly discarded: readonly Raw[]
}

/** Options of {@link createAttemptScanner}. */
export interface AttemptScannerOptions {
  readonly tools: readonly string[]
  readonly formats: readonly FormatId[] | undefined
  readonly maxHoldChars: number | undefined
  /** Called for a structured call naming a tool that was not offered. */
  readonly onUnknownTool: (toolName: string, params: string) => void
  /**
   * Keep the attempt's whole text for {@link AttemptReport.text} (a `persistFailed` hook, an
   * announced call's last sentence). @defaultValue false
   */
  readonly keepText?: boolean
}

const TEXT = 0
const REASONING = 1
type ChannelIndex = typeof TEXT | typeof REASONING
const CHANNEL_NAMES: readonly [Channel, Channel] = ["text", "reasoning"]
/** The order of an attempt's report: reasoning first (made once, not per attempt). */
const REPORT_ORDER: readonly ChannelIndex[] = [REASONING, TEXT]
/** The report's empty lists, shared (a clean attempt has no markup; most have no reasoning). */
const NONE: readonly never[] = Object.freeze([])

/** A text or reasoning part waiting in the queue. */
interface TextEntry<Raw> {
  readonly kind: "text"
  readonly part: TextPart<Raw>
  readonly channel: ChannelIndex
  /** Channel offsets of the part's text: [start, end). */
  readonly start: number
  readonly end: number
  /** Characters [start, decided) are decided. */
  decided: number
  /** Released visible pieces not yet yielded. */
  pieces: string[]
  /** Some of the part was withheld, or some of it was already yielded. */
  split: boolean
  /** Reasoning runs started before this text part (text channel only). */
  readonly reasoningRunsBefore: number
  /** The text run this part belongs to (text channel only). */
  readonly textRun: number
}

/** A non-text part waiting behind undecided text. */
interface PartEntry<Raw> {
  readonly kind: "part"
  readonly part: NormalizedPart<Raw>
}

/** The attempt's first `finish` part: it and everything after it wait for the decision. */
interface BarrierEntry<Raw> {
  readonly kind: "barrier"
  readonly part: NormalizedPart<Raw>
}

type Entry<Raw> = TextEntry<Raw> | PartEntry<Raw> | BarrierEntry<Raw>

type TextPart<Raw> = Extract<NormalizedPart<Raw>, { readonly type: "text" | "reasoning" }>

interface ChannelState<Raw> {
  /** Created on the channel's first text (most streams have no reasoning channel). */
  detector: Detector | undefined
  /** Characters pushed to this channel in the attempt. */
  length: number
  /** Channel offset where the current run (since the last reset) started. */
  base: number
  /** Characters [0, frontier) are decided. */
  frontier: number
  /** Entries of this channel not fully decided, oldest first. */
  readonly pending: TextEntry<Raw>[]
  pendingHead: number
  /**
   * The channel's text, in pieces, joined once at the end (`keepText` only). This and the lists
   * below are made on their first entry: a clean attempt keeps, withholds and finds nothing.
   */
  texts: string[] | undefined
  /**
   * The withheld characters, in pieces, and the channel offset of each: markup text is read
   * from them (markup is always withheld).
   */
  withheld: string[] | undefined
  withheldAt: number[] | undefined
  /** Markup reported in this channel: the detector reports each markup once. */
  found: RunMarkup[] | undefined
}

interface RunMarkup {
  readonly markup: Markup
  /** The run of its channel (1-based) the markup was found in. */
  readonly run: number
}

const NON_WHITESPACE = /\S/

/**
 * Internal: creates the scanner that {@link runTurn} uses for each attempt.
 *
 * @example
 * ```ts
 * const scanner = createAttemptScanner({ tools: ["bash"], formats: undefined, maxHoldChars: undefined, onUnknownTool() {} })
 * const out: OutputPart[] = []
 * scanner.push({ type: "text", text: "hello" }, out)
 * ```
 */
export function createAttemptScanner<Raw>(options: AttemptScannerOptions): AttemptScanner<Raw> {
  return new Scanner<Raw>(options)
}

/**
 * The scanner's state as fields and its steps as prototype methods: every open stream of every
 * adapter holds one, idle or not, and a closure per step (with the context they share) cost
 * about a kilobyte per stream more than the one object.
 */
class Scanner<Raw> implements AttemptScanner<Raw> {
  private readonly options: AttemptScannerOptions
  private readonly detectorOptions: DetectorOptions
  private readonly keepText: boolean
  // The reasoning channel is made on the attempt's first reasoning part: most streams have none.
  private readonly channels: [ChannelState<Raw>, ChannelState<Raw> | undefined] = [
    newChannel<Raw>(),
    undefined,
  ]
  private readonly queue: Entry<Raw>[] = []
  private head = 0
  private active: ChannelIndex | -1 = -1
  private reasoningRuns = 0
  private textRuns = 0
  /** Highest reasoning run after which visible answer text was released. */
  private answeredReasoningRun = 0
  /** Highest text run in which visible non-whitespace text was released. */
  private answeredTextRun = 0
  private barrierSeen = false
  private barrierReleased = false
  private structuredCall = false

  constructor(options: AttemptScannerOptions) {
    this.options = options
    this.detectorOptions = detectorOptionsOf(options)
    this.keepText = options.keepText === true
  }

  /** Channel `index`, made when first used. */
  private channelOf(index: ChannelIndex): ChannelState<Raw> {
    const existing = this.channels[index]
    if (existing !== undefined) return existing
    const made = newChannel<Raw>()
    this.channels[index] = made
    return made
  }

  push(part: NormalizedPart<Raw>, out: OutputPart<Raw>[]): NormalizedPart<Raw> | undefined {
    switch (part.type) {
      case "text":
        return this.pushText(part, TEXT, out)
      case "reasoning":
        return this.pushText(part, REASONING, out)
      case "tool-call":
        this.structuredCall = true
        if (classifyToolCall(part.toolName, this.options.tools) === "unknown") {
          this.options.onUnknownTool(part.toolName, part.params ?? "")
        }
        return this.pushPart(part)
      case "finish":
        if (!this.barrierSeen) {
          this.barrierSeen = true
          this.queue.push({ kind: "barrier", part })
          return undefined
        }
        return this.pushPart(part)
      case "other":
        return this.pushPart(part)
      default:
        return part satisfies never
    }
  }

  private pushPart(part: NormalizedPart<Raw>): NormalizedPart<Raw> | undefined {
    if (this.head === this.queue.length) return part
    this.queue.push({ kind: "part", part })
    return undefined
  }

  private pushText(
    part: TextPart<Raw>,
    index: ChannelIndex,
    out: OutputPart<Raw>[],
  ): NormalizedPart<Raw> | undefined {
    if (this.active !== index) this.switchTo(index, out)
    const channel = this.channelOf(index)
    const start = channel.length
    const text = part.text
    channel.length += text.length
    if (this.keepText) {
      channel.texts ??= []
      channel.texts.push(text)
    }
    channel.detector ??= createDetector(this.detectorOptions)
    const result = channel.detector.push(text)
    // Fast path, the common case: nothing queued, nothing held, nothing withheld. The part
    // leaves as the very object that arrived.
    if (
      this.head === this.queue.length &&
      channel.frontier === start &&
      result.markup.length === 0 &&
      result.text.length === text.length
    ) {
      channel.frontier = channel.length
      if (
        index === TEXT &&
        (this.reasoningRuns > this.answeredReasoningRun || this.textRuns > this.answeredTextRun)
      ) {
        this.noteAnswer(this.reasoningRuns, this.textRuns, text)
      }
      // `out` holds what a channel switch released just now, which goes first.
      if (out.length === 0) return part
      out.push(part)
      return undefined
    }
    const entry: TextEntry<Raw> = {
      kind: "text",
      part,
      channel: index,
      start,
      end: channel.length,
      decided: start,
      pieces: [],
      split: false,
      reasoningRunsBefore: this.reasoningRuns,
      textRun: this.textRuns,
    }
    this.queue.push(entry)
    channel.pending.push(entry)
    this.apply(index, result)
    this.flush(out)
    return undefined
  }

  /** Ends the active channel's run so held text cannot block the other channel. */
  private switchTo(index: ChannelIndex, out: OutputPart<Raw>[]): void {
    if (this.active !== -1) this.endRun(this.active, true)
    this.active = index
    if (index === TEXT) this.textRuns++
    else this.reasoningRuns++
    this.flush(out)
  }

  /**
   * Ends the channel's run. `restart`: the attempt goes on, so the detector is reset for the
   * channel's next run; at the end of the attempt it is not (`reset()` does it before the next
   * attempt pushes anything, and a clean turn has none: a reset makes a new state machine).
   */
  private endRun(index: ChannelIndex, restart: boolean): void {
    const channel = this.channelOf(index)
    if (channel.detector !== undefined) {
      this.apply(index, channel.detector.end())
      if (restart) channel.detector.reset()
    }
    channel.base = channel.length
  }

  /**
   * Accounts a detector result to the pending entries of the channel, by the positions the
   * detector reports: the channel's characters [frontier, decided) are its `withheld` spans and,
   * between them, its released `text` in order. The spans cover what is withheld now, reported or
   * not yet (the open call of a leak that spans deltas is withheld as it arrives and reported when
   * it closes; markup inside an inline reasoning block waits for its answer). Offsets from the
   * detector are run-relative; `base` makes them channel-relative.
   */
  private apply(index: ChannelIndex, result: DetectorResult): void {
    const channel = this.channelOf(index)
    for (const found of result.markup) {
      channel.found ??= []
      channel.found.push({
        markup: rebase(found, channel.base, index === REASONING),
        run: index === TEXT ? this.textRuns : this.reasoningRuns,
      })
    }
    const { text, withheld } = result
    const base = channel.base
    // Clamped so that a misreporting detector can never make the scanner account past its input.
    const to = Math.min(result.decided + base, channel.length)
    let pos = channel.frontier
    let taken = 0
    for (let k = 0; k < withheld.length; k += 2) {
      const start = Math.min(Math.max(withheld[k]! + base, pos), to)
      const end = Math.min(Math.max(withheld[k + 1]! + base, start), to)
      if (start > pos) {
        this.account(channel, pos, start, text.slice(taken, taken + (start - pos)))
        taken += start - pos
      }
      this.account(channel, start, end, undefined)
      pos = end
    }
    if (to > pos) {
      this.account(
        channel,
        pos,
        to,
        taken === 0 && text.length === to - pos ? text : text.slice(taken, taken + (to - pos)),
      )
      taken += to - pos
      pos = to
    }
    channel.frontier = Math.max(pos, channel.frontier)
    if (taken < text.length) {
      // Only a detector that misreports its positions gets here: never drop visible text.
      const last = channel.pending[channel.pending.length - 1]
      if (last !== undefined) last.pieces.push(text.slice(taken))
    }
  }

  /** Marks channel characters [from, to) decided: visible with `text`, withheld without. */
  private account(channel: ChannelState<Raw>, from: number, to: number, text: string | undefined): void {
    let at = from
    while (at < to && channel.pendingHead < channel.pending.length) {
      const entry = channel.pending[channel.pendingHead]!
      if (entry.end <= at) {
        channel.pendingHead++
        continue
      }
      const upto = Math.min(to, entry.end)
      if (upto > at) {
        if (text === undefined) {
          entry.split = true
          channel.withheld ??= []
          channel.withheldAt ??= []
          channel.withheld.push(entry.part.text.slice(at - entry.start, upto - entry.start))
          channel.withheldAt.push(at)
        } else {
          const piece = text.slice(at - from, upto - from)
          entry.pieces.push(piece)
          if (entry.channel === TEXT) this.noteAnswer(entry.reasoningRunsBefore, entry.textRun, piece)
        }
      }
      entry.decided = upto
      at = upto
      if (entry.decided === entry.end) channel.pendingHead++
    }
    if (channel.pendingHead === channel.pending.length) {
      channel.pending.length = 0
      channel.pendingHead = 0
    }
  }

  private noteAnswer(reasoningRunsBefore: number, textRun: number, visible: string): void {
    if (
      (reasoningRunsBefore > this.answeredReasoningRun || textRun > this.answeredTextRun) &&
      NON_WHITESPACE.test(visible)
    ) {
      if (reasoningRunsBefore > this.answeredReasoningRun) this.answeredReasoningRun = reasoningRunsBefore
      if (textRun > this.answeredTextRun) this.answeredTextRun = textRun
    }
  }

  /** Moves everything decided at the head of the queue to `out`, stopping at an unreleased barrier. */
  private flush(out: OutputPart<Raw>[]): void {
    const queue = this.queue
    while (this.head < queue.length) {
      const entry = queue[this.head]!
      if (entry.kind === "part") {
        out.push(entry.part)
      } else if (entry.kind === "barrier") {
        if (!this.barrierReleased) break
        out.push(entry.part)
      } else {
        if (entry.start === entry.end) {
          // An empty delta passes through like any other part (a clean stream is unchanged).
          out.push(entry.part)
        } else if (entry.pieces.length > 0) {
          const visible = entry.pieces.length === 1 ? entry.pieces[0]! : entry.pieces.join("")
          entry.pieces.length = 0
          if (!entry.split && entry.decided === entry.end && visible.length === entry.part.text.length) {
            out.push(entry.part)
          } else {
            out.push({ ...entry.part, text: visible })
            entry.split = true
          }
        }
        if (entry.decided < entry.end) break
      }
      this.head++
    }
    if (this.head === queue.length) {
      queue.length = 0
      this.head = 0
    }
  }

  end(out: OutputPart<Raw>[]): AttemptReport<Raw> {
    if (this.active !== -1) this.endRun(this.active, false)
    this.active = -1
    // After `end()` the detector has decided every character. Should it ever leave some
    // unaccounted (a detector bug), they count as withheld: never shown, never blocking the
    // parts behind them.
    for (let index = 0; index < this.channels.length; index++) {
      const channel = this.channels[index]
      if (channel !== undefined && channel.frontier < channel.length) {
        this.account(channel, channel.frontier, channel.length, undefined)
        channel.frontier = channel.length
      }
    }
    this.flush(out)
    // Joined only for a retry's FailedResponse: a clean attempt never pays for it, and markup
    // text is read from the pieces (joining every delta of a long attempt to slice a few spans
    // out of it costs more than the rest of the attempt's markup handling together).
    let markup: FoundMarkup[] | undefined
    // Reasoning first, each channel in stream order.
    for (let k = 0; k < REPORT_ORDER.length; k++) {
      const index = REPORT_ORDER[k]!
      const channel = this.channels[index]
      const found = channel?.found
      if (channel === undefined || found === undefined || found.length === 0) continue
      markup ??= []
      const withheld = channel.withheld ?? NONE
      const withheldAt = channel.withheldAt ?? NONE
      const ordered = found.length === 1 ? found : [...found].sort((a, b) => a.markup.start - b.markup.start)
      for (const record of ordered) {
        markup.push({
          markup: this.settle(record.markup, index, record.run),
          channel: CHANNEL_NAMES[index],
          text: markupText(withheld, withheldAt, record.markup),
        })
      }
    }
    const discarded: Raw[] = []
    for (let i = this.head; i < this.queue.length; i++) {
      const entry = this.queue[i]!
      if (entry.kind !== "text" && "raw" in entry.part) discarded.push(entry.part.raw as Raw)
    }
    return new Report(
      markup ?? NONE,
      this.structuredCall,
      this.channels[TEXT].texts ?? NONE,
      this.channels[REASONING]?.texts ?? NONE,
      discarded,
    )
  }

  /** Final `answerFollows`, once every run of the attempt is known. */
  private settle(found: Markup, index: ChannelIndex, run: number): Markup {
    if (index === REASONING) {
      const answerFollows = this.answeredReasoningRun >= run
      return found.answerFollows === answerFollows ? found : { ...found, answerFollows }
    }
    // Inline reasoning (`<think>` in the text) ended with its text run: an answer in a later text
    // run still follows it.
    if (found.inReasoning && !found.answerFollows && this.answeredTextRun > run)
      return { ...found, answerFollows: true }
    return found
  }

  release(out: OutputPart<Raw>[]): void {
    this.barrierReleased = true
    this.flush(out)
  }

  reset(): void {
    for (let index = 0; index < this.channels.length; index++) {
      const channel = this.channels[index]
      if (channel === undefined) continue
      channel.detector?.reset()
      channel.length = 0
      channel.base = 0
      channel.frontier = 0
      channel.pending.length = 0
      channel.pendingHead = 0
      // Dropped, not emptied: the last attempt's report may still read its texts.
      channel.texts = undefined
      channel.withheld = undefined
      channel.withheldAt = undefined
      channel.found = undefined
    }
    this.queue.length = 0
    this.head = 0
    this.active = -1
    this.reasoningRuns = 0
    this.textRuns = 0
    this.answeredReasoningRun = 0
    this.answeredTextRun = 0
    this.barrierSeen = false
    this.barrierReleased = false
    this.structuredCall = false
  }

  retained(): number {
    let count = 0
    for (const channel of this.channels) {
      if (channel === undefined) continue
      for (const piece of channel.texts ?? NONE) count += piece.length
      for (const piece of channel.withheld ?? NONE) count += piece.length
    }
    return count
  }
}

/** The detector's options: absent options left out, without a spread's temporary objects. */
function detectorOptionsOf({ tools, formats, maxHoldChars }: AttemptScannerOptions): DetectorOptions {
  if (formats === undefined) return maxHoldChars === undefined ? { tools } : { tools, maxHoldChars }
  return maxHoldChars === undefined ? { tools, formats } : { tools, formats, maxHoldChars }
}

/** A channel before its first text. */
function newChannel<Raw>(): ChannelState<Raw> {
  return {
    detector: undefined,
    length: 0,
    base: 0,
    frontier: 0,
    pending: [],
    pendingHead: 0,
    texts: undefined,
    withheld: undefined,
    withheldAt: undefined,
    found: undefined,
  }
}

/**
 * An attempt's report. A class, not an object literal with getters: with such a literal, what it
 * points at (the scanner and, through it, the whole turn) outlived every young-generation GC
 * until the next full one (measured: 5 KB a turn promoted; `test/young-garbage.test.ts`).
 */
class Report<Raw> implements AttemptReport<Raw> {
  readonly markup: readonly FoundMarkup[]
  readonly structuredCall: boolean
  readonly discarded: readonly Raw[]
  readonly #texts: readonly string[]
  readonly #reasonings: readonly string[]
  #text: string | undefined
  #reasoning: string | undefined

  constructor(
    markup: readonly FoundMarkup[],
    structuredCall: boolean,
    texts: readonly string[],
    reasonings: readonly string[],
    discarded: readonly Raw[],
  ) {
    this.markup = markup
    this.structuredCall = structuredCall
    this.discarded = discarded
    this.#texts = texts
    this.#reasonings = reasonings
  }

  /** Joined on first read only: a clean attempt never pays for it. */
  get text(): string {
    this.#text ??= this.#texts.join("")
    return this.#text
  }

  get reasoning(): string {
    this.#reasoning ??= this.#reasonings.join("")
    return this.#reasoning
  }
}

/**
 * The text of a markup, read from its channel's withheld pieces (in offset order): a binary search
 * for the piece holding its start, then forward to its end.
 */
function markupText(
  withheld: readonly string[],
  withheldAt: readonly number[],
  { start, end }: Markup,
): string {
  let low = 0
  let high = withheldAt.length
  while (low < high) {
    const mid = (low + high) >> 1
    if (withheldAt[mid]! + withheld[mid]!.length <= start) low = mid + 1
    else high = mid
  }
  const parts: string[] = []
  for (let k = low; k < withheld.length && withheldAt[k]! < end; k++) {
    const at = withheldAt[k]!
    parts.push(withheld[k]!.slice(Math.max(start - at, 0), end - at))
  }
  return parts.length === 1 ? parts[0]! : parts.join("")
}

/** Channel-relative offsets; markup from reasoning parts is in reasoning by definition. */
function rebase(markup: Markup, base: number, reasoning: boolean): Markup {
  if (base === 0 && (!reasoning || markup.inReasoning)) return markup
  return {
    ...markup,
    start: markup.start + base,
    end: markup.end + base,
    ...(reasoning ? { inReasoning: true } : {}),
  }
}
