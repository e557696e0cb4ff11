import { PassThrough, Readable } from "node:stream"
import type { CliIo } from "../src/io.ts"

/** A captured output stream. */
export interface Captured {
  readonly text: () => string
  write(chunk: string): boolean
  readonly isTTY: boolean
  readonly columns: number
}

export function captured(isTTY = false, columns = 100): Captured {
  const chunks: string[] = []
  return {
    text: () => chunks.join(""),
    write(chunk: string) {
      chunks.push(chunk)
      return true
    },
    isTTY,
    columns,
  }
}

/** An io with captured stdout/stderr, an empty stdin (or `stdin`), and no colour. */
export function testIo(
  options: {
    stdin?: string | Readable
    env?: Record<string, string>
    cwd?: string
    tty?: boolean
    columns?: number
  } = {},
): CliIo & { stdout: Captured; stderr: Captured } {
  const stdin =
    options.stdin instanceof Readable
      ? options.stdin
      : Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)])
  return {
    stdout: captured(options.tty ?? false, options.columns),
    stderr: captured(options.tty ?? false),
    stdin,
    env: { ...options.env },
    cwd: options.cwd ?? process.cwd(),
  }
}

export { PassThrough }
