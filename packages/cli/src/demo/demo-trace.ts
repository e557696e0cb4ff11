import type { OutputStream } from "../io.ts"
import type { Style } from "../style.ts"
import { visibleWidth } from "../style.ts"
import { excerpt } from "../text.ts"
import { wrapText } from "../wrap-text.ts"

/** The kinds of trace lines, each with its own colour. */
export type TraceKind =
  | ""
  | "user"
  | "model"
  | "detector"
  | "recovery"
  | "persist"
  | "retry"
  | "tool-call"
  | "tool"
  | "error"
  | "ok"
  | "fail"

const LABEL_WIDTH = 10

/**
 * The live trace of the demo: labelled steps, and the model's visible text as it streams (the
 * text the user would see on screen, and nothing else).
 */
export interface DemoTrace {
  heading(text: string): void
  scenario(text: string): void
  step(kind: TraceKind, text: string): void
  /** The next piece of visible model text; it is shown live and recorded as the screen. */
  modelText(delta: string): void
  /** Ends the current model text run. */
  endModelText(): void
  /** Everything shown as model text since `resetScreen`. */
  screen(): string
  resetScreen(): void
}

/**
 * A trace on `out` with `style`, its lines wrapped to the terminal's width (80 columns when it is
 * not known), continuing under the label.
 *
 * @example
 * ```ts
 * const trace = createDemoTrace(process.stdout, createStyle(process.stdout, process.env))
 * trace.step("user", "Which port does the dev server listen on?")
 * ```
 */
export function createDemoTrace(out: OutputStream, style: Style): DemoTrace {
  const width = out.columns ?? 80
  const colour: Readonly<Record<TraceKind, (text: string) => string>> = {
    "": (text) => text,
    user: style.cyan,
    model: style.bold,
    detector: style.magenta,
    recovery: style.yellow,
    persist: style.yellow,
    retry: style.yellow,
    "tool-call": style.green,
    tool: style.green,
    error: style.red,
    ok: style.green,
    fail: style.red,
  }
  const indent = `    ${" ".repeat(LABEL_WIDTH)}`
  const room = width - indent.length
  let inModel = false
  /** Columns used on the current model text line, after the label. */
  let column = 0
  /** Model text not written yet: a word that may continue, and the whitespace before it. */
  let pending = ""
  let screen: string[] = []

  const label = (kind: TraceKind): string => `    ${colour[kind](kind.padEnd(LABEL_WIDTH))}`

  /**
   * Writes one line of model text from the current column, breaking at a space before a word that
   * would pass the edge. Deltas can split a word; a word continued from the previous delta stays
   * on its line.
   */
  function writeWrapped(line: string): void {
    line.split(" ").forEach((word, index) => {
      if (index > 0) {
        const size = visibleWidth(word)
        if (column > 0 && column + 1 + size > room) {
          out.write(`\n${indent}`)
          column = 0
        } else {
          out.write(" ")
          column += 1
        }
      }
      out.write(word)
      column += visibleWidth(word)
    })
  }

  /** Writes model text: line breaks continue under the label; control characters are escaped. */
  function writeText(text: string): void {
    if (text.length === 0) return
    if (!inModel) {
      out.write(label("model"))
      inModel = true
      column = 0
    }
    text.split(/\r?\n/).forEach((line, index) => {
      if (index > 0) {
        out.write(`\n${indent}`)
        column = 0
      }
      writeWrapped(line.length === 0 ? "" : excerpt(line, Number.MAX_SAFE_INTEGER))
    })
  }

  function endModelText(): void {
    writeText(pending.trimEnd())
    pending = ""
    if (!inModel) return
    out.write("\n")
    inModel = false
  }

  return {
    heading(text) {
      endModelText()
      out.write(`\n${style.bold(wrapText(text, width, "   "))}\n`)
    },
    scenario(text) {
      endModelText()
      out.write(`  ${style.bold(wrapText(text, width, "  "))}\n`)
    },
    step(kind, text) {
      endModelText()
      out.write(`${label(kind)}${wrapText(text, width, indent)}\n`)
    },
    modelText(delta) {
      if (delta.length === 0) return
      screen.push(delta)
      pending += delta
      // Only whole words are written, so a word split across deltas wraps as one: what follows the
      // last space or line break may go on in the next delta. Whitespace at the end of what is
      // written waits too, and is printed only if more text follows.
      const cut = Math.max(pending.lastIndexOf(" "), pending.lastIndexOf("\n"))
      if (cut <= 0) return
      const body = pending.slice(0, cut).trimEnd()
      pending = pending.slice(body.length)
      writeText(body)
    },
    endModelText,
    screen: () => screen.join(""),
    resetScreen() {
      screen = []
    },
  }
}
