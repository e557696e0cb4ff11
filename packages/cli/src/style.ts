/**
 * Terminal colour, honouring the usual conventions: `FORCE_COLOR` (anything but `0`/`false`
 * forces colour on; Node gives it precedence over `NO_COLOR`, and so do we), `NO_COLOR` (any
 * non-empty value turns colour off, https://no-color.org), `TERM=dumb`, and otherwise colour
 * only on a TTY.
 */
import type { OutputStream } from "./io.ts"

/**
 * Wraps text in ANSI colour codes, or returns it unchanged when colour is off.
 *
 * @example
 * ```ts
 * import { createStyle, type Style } from "@tool-rescue/cli"
 *
 * const style: Style = createStyle(process.stdout, process.env)
 * console.log(style.enabled ? style.red("✗ failed") : "failed")
 * ```
 */
export interface Style {
  readonly enabled: boolean
  bold(text: string): string
  dim(text: string): string
  red(text: string): string
  green(text: string): string
  yellow(text: string): string
  cyan(text: string): string
  magenta(text: string): string
}

/**
 * Whether to use colour on `stream` under `env`.
 *
 * @example
 * ```ts
 * import { colorEnabled } from "@tool-rescue/cli"
 *
 * colorEnabled({ isTTY: true }, { NO_COLOR: "1" }) // false
 * ```
 */
export function colorEnabled(
  stream: Pick<OutputStream, "isTTY">,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  const force = env.FORCE_COLOR
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false"
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false
  if (env.TERM === "dumb") return false
  return stream.isTTY === true
}

const ESC = "\u001b["

function paint(open: number, close: number): (text: string) => string {
  return (text) => `${ESC}${open}m${text}${ESC}${close}m`
}

const plain = (text: string): string => text

/**
 * A {@link Style} for `stream`.
 *
 * @example
 * ```ts
 * import { createStyle } from "@tool-rescue/cli"
 *
 * const style = createStyle(process.stdout, process.env)
 * console.log(style.green("ok"))
 * ```
 */
export function createStyle(
  stream: Pick<OutputStream, "isTTY">,
  env: Readonly<Record<string, string | undefined>>,
): Style {
  if (!colorEnabled(stream, env)) {
    return {
      enabled: false,
      bold: plain,
      dim: plain,
      red: plain,
      green: plain,
      yellow: plain,
      cyan: plain,
      magenta: plain,
    }
  }
  return {
    enabled: true,
    bold: paint(1, 22),
    dim: paint(2, 22),
    red: paint(31, 39),
    green: paint(32, 39),
    yellow: paint(33, 39),
    cyan: paint(36, 39),
    magenta: paint(35, 39),
  }
}

// SGR sequences only (what Style writes); not applied to model text, which is escaped instead.
const SGR = /\u001b\[[0-9;]*m/g

/**
 * The number of terminal columns `text` takes: SGR colour codes take none.
 *
 * @example
 * ```ts
 * import { visibleWidth } from "@tool-rescue/cli"
 *
 * visibleWidth("\u001b[32mok\u001b[39m") // 2
 * ```
 */
export function visibleWidth(text: string): number {
  let width = 0
  for (const char of text.replace(SGR, "")) width += isWide(char.codePointAt(0) ?? 0) ? 2 : 1
  return width
}

/** East Asian wide and fullwidth ranges, roughly (enough to keep tables aligned for CJK tool names). */
function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  )
}
