/**
 * The streams and environment a command runs with. Commands take a {@link CliIo} instead of
 * reaching for `process`, so tests run them in-process with captured output.
 */
import type { Readable } from "node:stream"

/**
 * A writable text stream: `process.stdout`, `process.stderr` or a test double.
 *
 * @example
 * ```ts
 * import type { OutputStream } from "@tool-rescue/cli"
 *
 * const chunks: string[] = []
 * const captured: OutputStream = { write: (chunk) => chunks.push(chunk) }
 * ```
 */
export interface OutputStream {
  write(chunk: string): unknown
  /** True when the stream is a terminal (colour and live progress lines are used only then). */
  readonly isTTY?: boolean | undefined
  /** Terminal width, when known. */
  readonly columns?: number | undefined
}

/**
 * What a command reads from and writes to.
 *
 * @example
 * ```ts
 * import { type CliIo, processIo, runScan } from "@tool-rescue/cli"
 *
 * const chunks: string[] = []
 * const io: CliIo = { ...processIo(), stdout: { write: (chunk) => chunks.push(chunk) } }
 * await runScan(["recorded.jsonl", "--json"], io)
 * ```
 */
export interface CliIo {
  readonly stdout: OutputStream
  readonly stderr: OutputStream
  /** Read by `scan -`. */
  readonly stdin: Readable
  readonly env: Readonly<Record<string, string | undefined>>
  /** Resolves relative paths. */
  readonly cwd: string
}

/**
 * The process's own streams and environment.
 *
 * @example
 * ```ts
 * import { main, processIo } from "@tool-rescue/cli"
 *
 * process.exitCode = await main(["scan", "responses.jsonl"], processIo())
 * ```
 */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  }
}
