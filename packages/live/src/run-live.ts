import { existsSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { RecoveryEvent } from "@tool-rescue/recovery"
import type { AdapterReport, LiveReport, TaskResult } from "./live-report.ts"
import {
  type AdapterId,
  adapterIds,
  type LiveTarget,
  type LiveTask,
  liveTasks,
  type TurnRunner,
} from "./live-turn.ts"
import { createFileTools, insideWorkspace, seedWorkspace, type WriteGate } from "./live-workspace.ts"
import { agentCliRunner } from "./run-agent-cli.ts"
import { runAiSdk } from "./run-ai-sdk.ts"
import { runEffect } from "./run-effect.ts"
import { runLangChain } from "./run-langchain.ts"
import { runOpenAi } from "./run-openai.ts"
import { runProxy } from "./run-proxy.ts"

function runners(serveCommand: readonly string[] | undefined): Readonly<Record<AdapterId, TurnRunner>> {
  return {
    "ai-sdk": runAiSdk,
    openai: runOpenAi,
    effect: runEffect,
    langchain: runLangChain,
    proxy: runProxy,
    opencode: agentCliRunner("opencode", serveCommand),
  }
}

/** What to run. */
export interface LiveRunOptions {
  readonly target: LiveTarget
  /** @defaultValue every adapter */
  readonly adapters?: readonly AdapterId[]
  /** @defaultValue {@link liveTasks} */
  readonly tasks?: readonly LiveTask[]
  /** Keep the disposable directory. @defaultValue false */
  readonly keep?: boolean
  /** The approval gate for a workspace directory. @defaultValue {@link insideWorkspace} */
  readonly gate?: (dir: string) => WriteGate
  /** How long one turn may take. @defaultValue 600 000 (10 minutes) */
  readonly turnTimeoutMs?: number
  /**
   * How to start `tool-rescue serve` for an agent CLI: the program and its first arguments.
   * @defaultValue the built CLI (`builtServeCommand()`)
   */
  readonly serveCommand?: readonly string[]
  /** Called after each turn (progress output). */
  readonly onTask?: (adapter: AdapterId, result: TaskResult) => void
}

/**
 * Runs every task through every adapter's agent loop against `target`. Each adapter works in its
 * own seeded workspace `<root>/<adapter>/` (so a path escaping it lands in `<root>`, which is
 * disposable too); `<root>` is removed at the end unless `keep`.
 *
 * @example
 * ```ts
 * const report = await runLive({ target: { baseURL, model: "qwen3-coder", apiKey: "local" } })
 * console.log(formatTable(report))
 * ```
 */
export async function runLive(options: LiveRunOptions): Promise<LiveReport> {
  const root = await mkdtemp(join(tmpdir(), "tool-rescue-live-"))
  try {
    const adapters: AdapterReport[] = []
    const byId = runners(options.serveCommand)
    for (const adapter of options.adapters ?? adapterIds) {
      adapters.push(await runAdapter(adapter, byId[adapter], root, options))
    }
    return { baseURL: options.target.baseURL, model: options.target.model, root, adapters }
  } finally {
    if (options.keep !== true) await rm(root, { recursive: true, force: true })
  }
}

async function runAdapter(
  adapter: AdapterId,
  runner: TurnRunner,
  root: string,
  options: LiveRunOptions,
): Promise<AdapterReport> {
  const dir = join(root, adapter)
  await seedWorkspace(dir)
  const tools = createFileTools(dir, (options.gate ?? insideWorkspace)(dir))
  let leaks = 0
  let recoveries = 0
  const onEvent = (event: RecoveryEvent) => {
    // Markup a retry is spent on only, as the proxy's /metrics tells it for the agent CLIs
    // (markup kept as text — not offered, in reasoning — is never retried).
    if (event.type === "markup-detected" && event.recoverable) leaks++
    if (event.type === "recovery-succeeded") recoveries++
  }
  const onCounts = (counts: { readonly leaks: number; readonly recoveries: number }) => {
    leaks += counts.leaks
    recoveries += counts.recoveries
  }
  const tasks: TaskResult[] = []
  const started = performance.now()
  for (const task of options.tasks ?? liveTasks) {
    const taskStarted = performance.now()
    const runsBefore = tools.runs.length
    const signal = AbortSignal.timeout(options.turnTimeoutMs ?? 600_000)
    let result: Omit<TaskResult, "tools" | "ms">
    try {
      const outcome = await runner({ target: options.target, task, tools, onEvent, onCounts, signal })
      result =
        "answer" in outcome
          ? { task: task.id, outcome: "answered", text: outcome.answer }
          : {
              task: task.id,
              outcome: "recovery-error",
              text: outcome.error.message,
              code: outcome.error.code,
            }
    } catch (error) {
      result = { task: task.id, outcome: "failed", text: describe(error) }
    }
    // An abort may surface as anything (an `aborted` recovery error included): it is a timeout.
    if (signal.aborted) {
      result = {
        task: task.id,
        outcome: "failed",
        text: `timed out after ${options.turnTimeoutMs ?? 600_000} ms`,
      }
    }
    const done: TaskResult = {
      ...result,
      tools: tools.runs.slice(runsBefore).map((run) => run.name),
      ms: Math.round(performance.now() - taskStarted),
    }
    tasks.push(done)
    options.onTask?.(adapter, done)
  }
  const errors: Record<string, number> = {}
  for (const task of tasks) if (task.code !== undefined) errors[task.code] = (errors[task.code] ?? 0) + 1
  const toolRuns: Record<string, number> = {}
  for (const run of tools.runs) toolRuns[run.name] = (toolRuns[run.name] ?? 0) + 1
  return {
    adapter,
    turns: tasks.length,
    leaks,
    recoveries,
    errors,
    failures: tasks.filter((task) => task.outcome === "failed").length,
    deniedWrites: tools.denied.length,
    toolRuns,
    violations: tools.denied
      .filter((write) => !write.existedBefore && existsSync(write.target))
      .map((write) => write.target),
    ms: Math.round(performance.now() - started),
    tasks,
  }
}

/** The message and its causes' (a refused connection is `fetch failed` ← `connect ECONNREFUSED …`). */
function describe(error: unknown): string {
  const messages: string[] = []
  for (let e: unknown = error; e !== undefined && messages.length < 4; e = (e as { cause?: unknown }).cause) {
    messages.push(e instanceof Error ? e.message : String(e))
    if (!(e instanceof Error)) break
  }
  return messages.join(" ← ").replaceAll("\n", " ").slice(0, 300)
}
