import {
  createDetector,
  type Detector,
  type DetectorResult,
  isRecoverable,
  type Markup,
  type Policy,
} from "@tool-rescue/detector"

/** Which field of the response the markup was in. */
export type ScanChannel = "text" | "reasoning"

/** Why detected markup would not make tool-rescue retry. */
export type NotRecoverableReason =
  | "structured-call"
  | "unnamed"
  | "not-offered"
  | "in-reasoning"
  | "no-evidence"

/** One markup found in one response. */
export interface Finding {
  readonly markup: Markup
  readonly channel: ScanChannel
  /** tool-rescue would retry this response because of this markup. */
  readonly recoverable: boolean
  /** Set when not recoverable. */
  readonly reason: NotRecoverableReason | undefined
  /** The start of the markup text (up to 240 characters), or undefined when it was no longer kept. */
  readonly text: string | undefined
}

/** The text of one channel as it streams: a detector and a bounded window for excerpts. */
interface ChannelScan {
  readonly detector: Detector
  /** Markup by start offset: a detector may report a span again (e.g. settled at `end()`). */
  readonly found: Map<number, Markup>
  /** The last characters of the channel; `windowStart` is the offset of its first one. */
  window: string
  windowStart: number
  /** Excerpt texts captured by start offset while still in the window. */
  readonly texts: Map<number, string>
  /** Released visible text contained non-whitespace. */
  answered: boolean
}

/** Characters of each channel kept for excerpts: enough for any markup that starts in it. */
const WINDOW = 256 * 1024
const EXCERPT = 240
const NON_WHITESPACE = /\S/

/** Scans one response, streamed or whole: text and reasoning deltas, structured calls. */
export interface ResponseScan {
  text(delta: string): void
  reasoning(delta: string): void
  /** The response carries a structured tool call (then nothing in it is recoverable). */
  structuredCall(): void
  /** Ends the response and returns what was found, in channel order (reasoning first). */
  end(): readonly Finding[]
}

/**
 * Starts scanning one response with the offered `tools` under `policy`. Text and reasoning go
 * to separate detectors, as in `@tool-rescue/recovery`: markup in the reasoning field is
 * reasoning, and an answer follows it when the text field has visible non-whitespace text.
 *
 * @example
 * ```ts
 * const response = createResponseScan(["read_file"], {})
 * response.text("Let me look.\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>")
 * response.end()[0]?.recoverable // true
 * ```
 */
export function createResponseScan(
  tools: readonly string[],
  policy: Policy,
  pool?: DetectorPool,
): ResponseScan {
  const channels = {
    text: newChannel(pool?.acquire(tools) ?? createDetector({ tools })),
    reasoning: newChannel(pool?.acquire(tools) ?? createDetector({ tools })),
  }
  let structured = false

  function push(channel: ChannelScan, delta: string): void {
    if (delta.length === 0) return
    channel.window += delta
    if (channel.window.length > 2 * WINDOW) {
      const drop = channel.window.length - WINDOW
      channel.window = channel.window.slice(drop)
      channel.windowStart += drop
    }
    record(channel, channel.detector.push(delta))
  }

  function record(channel: ChannelScan, result: DetectorResult): void {
    if (!channel.answered && NON_WHITESPACE.test(result.text)) channel.answered = true
    for (const markup of result.markup) {
      channel.found.set(markup.start, markup)
      if (!channel.texts.has(markup.start) && markup.start >= channel.windowStart) {
        const from = markup.start - channel.windowStart
        const to = Math.min(markup.end, markup.start + EXCERPT) - channel.windowStart
        channel.texts.set(markup.start, channel.window.slice(from, to))
      }
    }
  }

  function findings(channel: ChannelScan, name: ScanChannel): Finding[] {
    const out: Finding[] = []
    for (const found of channel.found.values()) {
      const markup =
        name === "reasoning" ? { ...found, inReasoning: true, answerFollows: channels.text.answered } : found
      const policyRecoverable = isRecoverable(markup, policy)
      const recoverable = policyRecoverable && !structured
      out.push({
        markup,
        channel: name,
        recoverable,
        reason: recoverable ? undefined : reasonOf(markup, policyRecoverable, policy),
        text: channel.texts.get(found.start),
      })
    }
    return out.sort((a, b) => a.markup.start - b.markup.start)
  }

  return {
    text: (delta) => push(channels.text, delta),
    reasoning: (delta) => push(channels.reasoning, delta),
    structuredCall() {
      structured = true
    },
    end() {
      record(channels.reasoning, channels.reasoning.detector.end())
      record(channels.text, channels.text.detector.end())
      const found = [...findings(channels.reasoning, "reasoning"), ...findings(channels.text, "text")]
      pool?.release(tools, channels.reasoning.detector)
      pool?.release(tools, channels.text.detector)
      return found
    },
  }
}

function newChannel(detector: Detector): ChannelScan {
  return {
    detector,
    found: new Map(),
    window: "",
    windowStart: 0,
    texts: new Map(),
    answered: false,
  }
}

/**
 * Reuses detectors across responses with the same offered tools: a scan of a large file
 * creates a handful instead of two per response (creating one costs more than scanning a
 * short response).
 */
export interface DetectorPool {
  acquire(tools: readonly string[]): Detector
  /** Gives a detector back after its response ended; it is reset for the next one. */
  release(tools: readonly string[], detector: Detector): void
}

/**
 * A {@link DetectorPool} that keeps at most `perKey` idle detectors per tool set.
 *
 * @example
 * ```ts
 * const pool = createDetectorPool()
 * const response = createResponseScan(["bash"], {}, pool)
 * ```
 */
export function createDetectorPool(perKey = 4): DetectorPool {
  const idle = new Map<string, Detector[]>()
  const keyOf = (tools: readonly string[]): string => tools.join("\u0000")
  return {
    acquire(tools) {
      return idle.get(keyOf(tools))?.pop() ?? createDetector({ tools })
    },
    release(tools, detector) {
      const key = keyOf(tools)
      let free = idle.get(key)
      if (free === undefined) {
        // Bounded: a file with many distinct tool sets must not grow the pool without end.
        if (idle.size >= 64) idle.clear()
        free = []
        idle.set(key, free)
      }
      if (free.length < perKey) {
        detector.reset()
        free.push(detector)
      }
    },
  }
}

function reasonOf(markup: Markup, policyRecoverable: boolean, policy: Policy): NotRecoverableReason {
  if (policyRecoverable) return "structured-call"
  if (markup.toolName === undefined) return "unnamed"
  if (!markup.offered) return "not-offered"
  // Reasoning is the reason only when the same markup outside reasoning would count.
  if (markup.inReasoning && isRecoverable({ ...markup, inReasoning: false }, policy)) return "in-reasoning"
  return "no-evidence"
}
