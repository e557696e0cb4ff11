import { createReadStream } from "node:fs"
import { stat } from "node:fs/promises"
import { resolve } from "node:path"
import { CliError, isCliError } from "./cli-error.ts"
import type { CliIo } from "./io.ts"

/**
 * Opens a command's input file for streaming, or standard input for `-` (saying what it waits for
 * when nothing is piped in). A missing file or a directory is a one-line {@link CliError}.
 *
 * @example
 * ```ts
 * for await (const line of readLines(await openInput("failed.jsonl", io))) console.log(line.text)
 * ```
 */
export async function openInput(input: string, io: CliIo): Promise<AsyncIterable<Uint8Array | string>> {
  if (input === "-") {
    // Nothing piped in: say what we are waiting for instead of hanging silently.
    if ((io.stdin as { isTTY?: boolean }).isTTY === true)
      io.stderr.write("reading standard input (end it with Ctrl-D)\n")
    return io.stdin
  }
  const path = resolve(io.cwd, input)
  try {
    const info = await stat(path)
    if (info.isDirectory()) throw new CliError(`cannot read ${input}: it is a directory`)
  } catch (error) {
    if (isCliError(error)) throw error
    throw new CliError(`cannot read ${input}: ${describeFsError(error)}`)
  }
  return createReadStream(path, { highWaterMark: 256 * 1024 })
}

/**
 * A file-system error in a few words (`no such file`, `permission denied`, …).
 *
 * @example
 * ```ts
 * describeFsError(Object.assign(new Error("x"), { code: "ENOENT" })) // "no such file"
 * ```
 */
export function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown }).code
  if (code === "ENOENT") return "no such file"
  if (code === "EACCES" || code === "EPERM") return "permission denied"
  if (code === "EISDIR") return "it is a directory"
  return error instanceof Error ? error.message : String(error)
}
