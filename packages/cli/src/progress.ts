import type { OutputStream } from "./io.ts"

/**
 * A status line redrawn in place on a terminal (stderr); silent elsewhere.
 *
 * @example
 * ```ts
 * import { createProgressLine, type ProgressLine } from "@tool-rescue/cli"
 *
 * const progress: ProgressLine = createProgressLine(process.stderr, true)
 * progress.update("probing 3/10", true)
 * ```
 */
export interface ProgressLine {
  /** Redraws the line, at most every `intervalMs` unless `force`. */
  update(text: string, force?: boolean): void
  /** Erases the line (call before printing anything else to the same terminal). */
  clear(): void
}

/**
 * A {@link ProgressLine} on `stream` when it is a TTY and `enabled`; otherwise a no-op, so that
 * redirected output and CI logs get no `\r` noise.
 *
 * @example
 * ```ts
 * import { createProgressLine } from "@tool-rescue/cli"
 *
 * const progress = createProgressLine(process.stderr, true)
 * progress.update("scanning… 1,000 lines")
 * progress.clear()
 * ```
 */
export function createProgressLine(stream: OutputStream, enabled: boolean, intervalMs = 80): ProgressLine {
  if (!enabled || stream.isTTY !== true) return { update() {}, clear() {} }
  let last = 0
  let shown = false
  return {
    update(text, force = false) {
      const now = Date.now()
      if (!force && now - last < intervalMs) return
      last = now
      const columns = stream.columns ?? 80
      const line = text.length >= columns ? `${text.slice(0, Math.max(0, columns - 2))}…` : text
      stream.write(`\r\u001b[2K${line}`)
      shown = true
    },
    clear() {
      if (shown) stream.write("\r\u001b[2K")
      shown = false
    },
  }
}

/**
 * `[██████░░░░] 6/10` for a progress bar `width` cells wide.
 *
 * @example
 * ```ts
 * import { progressBar } from "@tool-rescue/cli"
 *
 * progressBar(3, 4, 8) // "[██████░░] 3/4"
 * ```
 */
export function progressBar(done: number, total: number, width = 24): string {
  const filled = total === 0 ? width : Math.min(width, Math.round((done / total) * width))
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${done}/${total}`
}
