/**
 * A small reference implementation of the detector contract (DESIGN.md, "Detector contract"),
 * used to test recovery's own logic independently of the real detector. It knows three formats:
 * Hermes (`<tool_call>{"name": …}</tool_call>`), Qwen3-Coder without its opening envelope
 * (`<function=NAME>…</function>`, optionally followed by `</tool_call>`), and `<think>` blocks.
 *
 * It is deliberately simple (it re-analyses the whole input on every push), and it holds back
 * the longest suffix that is a prefix of a marker, like the real one. Reasoning markup is
 * reported when it completes with `answerFollows: false`, and reported again by `end()` with
 * its final `answerFollows` (an update of the same span).
 */
import type { Detector, DetectorOptions, DetectorResult, Markup, Policy } from "@tool-rescue/detector"

const OPENERS = ["<tool_call>", "<function=", "<think>", "</think>"] as const

interface Span {
  start: number
  end: number
  markup: Markup | undefined
}

function analyse(
  input: string,
  final: boolean,
  tools: readonly string[],
): { frontier: number; spans: Span[] } {
  const spans: Span[] = []
  let pos = 0
  let thinkEnd: number | undefined
  let inThink = false
  for (;;) {
    let next = -1
    let which = ""
    for (const opener of OPENERS) {
      const at = input.indexOf(opener, pos)
      if (at !== -1 && (next === -1 || at < next)) {
        next = at
        which = opener
      }
    }
    if (next === -1) {
      if (final) return { frontier: input.length, spans }
      // Hold back the longest suffix that is a proper prefix of an opener.
      let hold = 0
      for (const opener of OPENERS) {
        for (let k = Math.min(opener.length - 1, input.length - pos); k > hold; k--) {
          if (input.endsWith(opener.slice(0, k))) {
            hold = k
            break
          }
        }
      }
      return { frontier: input.length - hold, spans }
    }
    if (which === "<think>") {
      inThink = true
      pos = next + which.length
      continue
    }
    if (which === "</think>") {
      inThink = false
      thinkEnd = next + which.length
      pos = thinkEnd
      continue
    }
    const closer = which === "<tool_call>" ? "</tool_call>" : "</function>"
    const close = input.indexOf(closer, next + which.length)
    if (close === -1 && !final) return { frontier: next, spans }
    let end = close === -1 ? input.length : close + closer.length
    if (which === "<function=" && close !== -1 && !final) {
      // An orphan `</tool_call>` may follow: undecided until it does or cannot.
      const rest = input.slice(end)
      if ("\n</tool_call>".startsWith(rest) || "</tool_call>".startsWith(rest))
        return { frontier: next, spans }
    }
    if (which === "<function=" && input.startsWith("\n</tool_call>", end)) end += "\n</tool_call>".length
    else if (which === "<function=" && input.startsWith("</tool_call>", end)) end += "</tool_call>".length
    const body = input.slice(next, end)
    const toolName = /"name"\s*:\s*"([^"]*)"/.exec(body)?.[1] ?? /<function=([^>]*)>/.exec(body)?.[1]
    spans.push({
      start: next,
      end,
      markup: {
        format: body.includes("<function=") ? "qwen3-coder" : "hermes",
        toolName,
        offered: toolName !== undefined && tools.includes(toolName),
        opening: which === "<tool_call>",
        closing: close !== -1,
        structured: body.includes("<function=")
          ? /<parameter=|<\/function>/.test(body)
          : toolName !== undefined,
        complete: close !== -1,
        inReasoning: inThink,
        answerFollows: false,
        start: next,
        end,
      },
    })
    pos = end
    void thinkEnd
  }
}

export function createDetector(options: DetectorOptions = {}): Detector {
  const tools = options.tools ?? []
  let input = ""
  let frontier = 0
  let reported = 0
  const step = (final: boolean): DetectorResult => {
    const { frontier: next, spans } = analyse(input, final, tools)
    const decided = spans.filter((s) => s.end <= next)
    const fresh = decided.slice(reported)
    let text = ""
    let at = frontier
    for (const span of decided) {
      if (span.end <= frontier) continue
      if (span.start > at) text += input.slice(at, span.start)
      at = span.end
    }
    if (next > at) text += input.slice(at, next)
    frontier = Math.max(frontier, next)
    reported = decided.length
    const markup = fresh.map((s) => s.markup!)
    if (final) {
      // Re-report reasoning markup with its final answerFollows.
      const updates: Markup[] = []
      for (const span of decided) {
        const m = span.markup!
        if (!m.inReasoning) continue
        const closeAt = input.indexOf("</think>", m.end)
        const after = closeAt === -1 ? "" : visibleAfter(input, closeAt + 8, spans)
        const final = { ...m, answerFollows: /\S/.test(after) }
        const i = markup.indexOf(m)
        if (i === -1) updates.push(final)
        else markup[i] = final
      }
      return { text, markup: [...updates, ...markup].sort((a, b) => a.start - b.start) }
    }
    return { text, markup }
  }
  return {
    push(delta) {
      input += delta
      return step(false)
    },
    end() {
      return step(true)
    },
    held() {
      return input.length - frontier
    },
    reset() {
      input = ""
      frontier = 0
      reported = 0
    },
  }
}

function visibleAfter(input: string, from: number, spans: Span[]): string {
  let text = ""
  let at = from
  for (const span of spans) {
    if (span.end <= at) continue
    if (span.start > at) text += input.slice(at, span.start)
    at = span.end
  }
  return text + input.slice(at)
}

export function scan(text: string, options: DetectorOptions = {}): DetectorResult {
  const d = createDetector(options)
  const a = d.push(text)
  const b = d.end()
  return { text: a.text + b.text, markup: [...a.markup, ...b.markup] }
}

export function isRecoverable(markup: Markup, policy: Policy = {}): boolean {
  const evidence = policy.evidence ?? "structure"
  const reasoning = policy.reasoning ?? "auto"
  if (!markup.offered) return false
  if (markup.inReasoning) {
    if (reasoning === "ignore") return false
    if (reasoning === "auto" && markup.answerFollows) return false
  }
  return evidence === "envelope"
    ? markup.opening || markup.closing
    : markup.opening || markup.closing || markup.structured
}

export const formats: readonly string[] = ["hermes", "qwen3-coder"]
