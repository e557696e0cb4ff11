import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { PassThrough, Readable } from "node:stream"
import { fileURLToPath } from "node:url"
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

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

/** A `tool-rescue serve` started by {@link serve}. */
export interface ServeRun {
  readonly child: ChildProcessWithoutNullStreams
  /** The URL it prints once it listens; rejects if it exits first. */
  readonly url: Promise<string>
  readonly exited: Promise<number | null>
  /** Its stderr as JSON log lines (stderr is not a terminal). */
  lines(): Array<Record<string, unknown>>
  output(): { stdout: string; stderr: string }
}

/**
 * Starts `tool-rescue serve --port 0 …args` as a user would (the bin, a child process, from
 * source) and resolves `url` with the URL it prints.
 */
export function serve(args: readonly string[], env: Record<string, string> = {}): ServeRun {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ["--conditions=@tool-rescue/source", bin, "serve", "--port", "0", ...args],
    { env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["pipe", "pipe", "pipe"] },
  )
  let stdout = ""
  let stderr = ""
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      const found = /listening on (\S+)/.exec(stdout)
      if (found !== null) resolve(found[1]!)
    })
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
  })
  return {
    child,
    url,
    exited,
    lines: () =>
      stderr
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    output: () => ({ stdout, stderr }),
  }
}

/** A port nothing listens on: one the system gave us, released again. */
export async function closedPort(): Promise<number> {
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
  const { port } = blocker.address() as AddressInfo
  await new Promise<void>((resolve) => blocker.close(() => resolve()))
  return port
}

export { PassThrough }
