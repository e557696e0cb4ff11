import type { Markup, Policy } from "@tool-rescue/detector"
import type { MarkupReason } from "@tool-rescue/recovery"
import { createResponseJudge, type ResponseJudge } from "@tool-rescue/recovery/adapter"

/** Which field of the response the markup was in. */
export type ScanChannel = "text" | "reasoning"

/**
 * Why detected markup would not make tool-rescue retry: recovery's own {@link MarkupReason}, so
 * `scan` prints the reason the adapters act on (never one recomputed here).
 */
/** Why markup is not retried; `unknown-tool` is retried (under `unknownToolMarkup: "retry"`), like `recoverable`. */
export type NotRecoverableReason = Exclude<MarkupReason, "recoverable" | "unknown-tool">

/** One markup found in one response. */
export interface Finding {
  readonly markup: Markup
  readonly channel: ScanChannel
  /** tool-rescue would retry this response because of this markup. */
  readonly recoverable: boolean
  /** Set when not recoverable. */
  readonly reason: NotRecoverableReason | undefined
  /** The start of the markup text (up to 240 characters). */
  readonly text: string | undefined
}

const EXCERPT = 240

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
 * Starts scanning one response with the offered `tools` under `policy`, through recovery's
 * non-retrying judge (`createResponseJudge`): the same scanner, channels and reasons as the
 * adapters' `runTurn`. Markup in the reasoning field is reasoning, and an answer follows it when
 * the text field has visible non-whitespace text after it.
 *
 * @example
 * ```ts
 * const response = createResponseScan(["read_file"], {})
 * response.text("Let me look.\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>")
 * response.end()[0]?.recoverable // true
 * ```
 */
export function createResponseScan(tools: readonly string[], policy: Policy, pool?: JudgePool): ResponseScan {
  const judge = pool?.acquire(tools) ?? createResponseJudge({ tools, options: policy })
  return {
    text: (delta) => {
      if (delta.length > 0) judge.push({ type: "text", text: delta })
    },
    reasoning: (delta) => {
      if (delta.length > 0) judge.push({ type: "reasoning", text: delta })
    },
    structuredCall() {
      // The name does not matter here: any structured call keeps the response from a retry.
      judge.push({ type: "tool-call", toolName: "", raw: undefined })
    },
    end() {
      const judgement = judge.end()
      pool?.release(tools, judge)
      const findings = judgement.markup.map(
        (found): Finding => ({
          markup: found.markup,
          channel: found.channel,
          recoverable: found.recoverable,
          reason:
            found.reason === "recoverable" || found.reason === "unknown-tool" ? undefined : found.reason,
          text: found.text.slice(0, EXCERPT),
        }),
      )
      const order = (finding: Finding) => (finding.channel === "reasoning" ? 0 : 1)
      return findings.sort((a, b) => order(a) - order(b) || a.markup.start - b.markup.start)
    },
  }
}

/**
 * Reuses judges across responses with the same offered tools: a scan of a large file creates a
 * handful instead of one per response (creating one costs more than judging a short response).
 */
export interface JudgePool {
  acquire(tools: readonly string[]): ResponseJudge
  /** Gives a judge back after its response ended (`end()` left it fresh for the next one). */
  release(tools: readonly string[], judge: ResponseJudge): void
}

/**
 * A {@link JudgePool} under `policy` that keeps at most `perKey` idle judges per tool set.
 *
 * @example
 * ```ts
 * const pool = createJudgePool({})
 * const response = createResponseScan(["bash"], {}, pool)
 * ```
 */
export function createJudgePool(policy: Policy, perKey = 4): JudgePool {
  const idle = new Map<string, ResponseJudge[]>()
  const keyOf = (tools: readonly string[]): string => tools.join("\u0000")
  return {
    acquire(tools) {
      return idle.get(keyOf(tools))?.pop() ?? createResponseJudge({ tools, options: policy })
    },
    release(tools, judge) {
      const key = keyOf(tools)
      let free = idle.get(key)
      if (free === undefined) {
        // Bounded: a file with many distinct tool sets must not grow the pool without end.
        if (idle.size >= 64) idle.clear()
        free = []
        idle.set(key, free)
      }
      if (free.length < perKey) free.push(judge)
    },
  }
}
