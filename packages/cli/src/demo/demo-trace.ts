import type { OutputStream } from "../io.ts"
import type { Style } from "../style.ts"
import { excerpt } from "../text.ts"

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
 * A trace on `out` with `style`.
 *
 * @example
 * ```ts
 * const trace = createDemoTrace(process.stdout, createStyle(process.stdout, process.env))
 * trace.step("user", "Which port does the dev server listen on?")
 * ```
 */
export function createDemoTrace(out: OutputStream, style: Style): DemoTrace {
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
  let inModel = false
  /** Whitespace held at the end of a model run: printed only if more text follows. */
  let pendingSpace = ""
  let screen: string[] = []

  const label = (kind: TraceKind): string => `    ${colour[kind](kind.padEnd(LABEL_WIDTH))}`

  function endModelText(): void {
    if (!inModel) return
    out.write("\n")
    inModel = false
    pendingSpace = ""
  }

  return {
    heading(text) {
      endModelText()
      out.write(`\n${style.bold(text)}\n`)
    },
    scenario(text) {
      endModelText()
      out.write(`  ${style.bold(text)}\n`)
    },
    step(kind, text) {
      endModelText()
      out.write(`${label(kind)}${text}\n`)
    },
    modelText(delta) {
      if (delta.length === 0) return
      screen.push(delta)
      const text = pendingSpace + delta
      const trimmed = text.trimEnd()
      pendingSpace = text.slice(trimmed.length)
      if (trimmed.length === 0) return
      if (!inModel) {
        out.write(label("model"))
        inModel = true
      }
      // Line breaks continue under the label; any control character from the model is escaped.
      const lines = trimmed.split(/\r?\n/)
      out.write(
        lines
          .map((line) => (line.length === 0 ? "" : excerpt(line, Number.MAX_SAFE_INTEGER)))
          .join(`\n${indent}`),
      )
    },
    endModelText,
    screen: () => screen.join(""),
    resetScreen() {
      screen = []
    },
  }
}
