/**
 * `tool-rescue serve` as a separate process (the built CLI, as a user runs it), and what its
 * `/metrics` says about leaks: an agent CLI's turn has no `onEvent` to count them from.
 */
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { parseMetricSamples } from "@tool-rescue/proxy"
import { errorCodeOutcomes, type RecoveryOutcome } from "@tool-rescue/recovery/adapter"

/** The leaks the proxy saw, by how they ended. */
export interface ProxyCounts {
  /**
   * Markup a retry was spent on (`tool_rescue_proxy_leaks_total` but for markup kept as text):
   * what the in-process adapters count as `markup-detected` events that are `recoverable`.
   */
  readonly leaks: number
  /** Leaks whose retry brought a structured call (outcome `recovered`). */
  readonly recoveries: number
  /** Leaks that ended the turn with a recovery error, by the `ToolCallRecoveryError` code. */
  readonly errors: Readonly<Record<string, number>>
}

/** A running `tool-rescue serve`. */
export interface ServeProcess {
  /** The proxy's base URL (`http://127.0.0.1:PORT/v1`). */
  readonly url: string
  /** The counts of its `/metrics` so far. */
  counts(): Promise<ProxyCounts>
  close(): Promise<void>
}

/**
 * The command that starts the built CLI: `node <@tool-rescue/cli>/bin/tool-rescue.js` (the file
 * npm links as `tool-rescue`, which loads `dist/bin.js`).
 */
export function builtServeCommand(): readonly string[] {
  const cli = dirname(createRequire(import.meta.url).resolve("@tool-rescue/cli/package.json"))
  return [process.execPath, join(cli, "bin/tool-rescue.js")]
}

/** Options of {@link startServe}. */
export interface StartServeOptions {
  /**
   * How long to wait for serve's `listening on <url>` line before stopping it (a serve that
   * neither prints it nor exits would hold the run forever). @defaultValue 60000
   */
  readonly startTimeoutMs?: number
}

/**
 * Starts `command serve --port 0 --upstream <upstream>` and waits for the line with its URL (at
 * most `startTimeoutMs`: then it is stopped, and the error says what was awaited).
 *
 * @example
 * ```ts
 * const serve = await startServe("http://127.0.0.1:11434/v1")
 * const { leaks } = await serve.counts()
 * await serve.close()
 * ```
 */
export async function startServe(
  upstream: string,
  command: readonly string[] = builtServeCommand(),
  { startTimeoutMs = 60_000 }: StartServeOptions = {},
): Promise<ServeProcess> {
  const [program, ...args] = command
  if (program === undefined) throw new Error("the serve command is empty")
  const child = spawn(
    program,
    [...args, "serve", "--port", "0", "--upstream", upstream, "--log-level", "warn", "--grace", "1"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  )
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()))
  let stdout = ""
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
  let timer: NodeJS.Timeout | undefined
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      const found = /listening on (\S+)/.exec(stdout)
      if (found?.[1] !== undefined) resolve(found[1])
    })
    child.once("close", (code) => reject(new Error(`tool-rescue serve exited ${code}: ${stderr.trim()}`)))
    timer = setTimeout(() => {
      child.kill("SIGKILL")
      const printed = [
        stdout.trim() && `stdout: ${stdout.trim()}`,
        stderr.trim() && `stderr: ${stderr.trim()}`,
      ]
      reject(
        new Error(
          [
            `tool-rescue serve printed no "listening on <url>" line in ${startTimeoutMs / 1000} s, and did not exit`,
            ...printed.filter((line) => line !== ""),
          ].join("; "),
        ),
      )
    }, startTimeoutMs)
  }).finally(() => clearTimeout(timer))
  return {
    url,
    async counts() {
      const response = await fetch(new URL("/metrics", url))
      return parseCounts(await response.text())
    },
    async close() {
      child.kill("SIGTERM")
      await exited
    },
  }
}

/** The `ToolCallRecoveryError` code of each failed outcome: recovery's own mapping, reversed. */
const errorCodes: ReadonlyMap<string, string> = new Map(
  Object.entries(errorCodeOutcomes).map(([code, outcome]) => [outcome, code]),
)

/**
 * Outcomes of markup kept as text (`not-offered`, `in-reasoning`): the proxy counts it in
 * `leaks_total`, but it is never retried, so it is not a leak of the report.
 */
const KEPT_AS_TEXT: ReadonlySet<string> = new Set<RecoveryOutcome>(["not-offered", "in-reasoning"])

/**
 * The leak counts of a Prometheus text exposition, read by the proxy's own reader (labels by
 * name, escapes undone: a model name's text is never taken for a label).
 *
 * @example
 * ```ts
 * parseCounts('tool_rescue_proxy_leaks_total{protocol="chat",format="qwen3-coder",outcome="recovered",model="m"} 1\n')
 * // { leaks: 1, recoveries: 1, errors: {} }
 * ```
 */
export function parseCounts(metrics: string): ProxyCounts {
  let leaks = 0
  let recoveries = 0
  const errors: Record<string, number> = {}
  for (const { name, labels, value } of parseMetricSamples(metrics)) {
    if (name !== "tool_rescue_proxy_leaks_total") continue
    const outcome = labels.get("outcome") ?? ""
    if (KEPT_AS_TEXT.has(outcome)) continue
    leaks += value
    if (outcome === "recovered") recoveries += value
    const code = errorCodes.get(outcome)
    if (code !== undefined) errors[code] = (errors[code] ?? 0) + value
  }
  return { leaks, recoveries, errors }
}
