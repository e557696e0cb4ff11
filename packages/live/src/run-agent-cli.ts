/**
 * An agent CLI (opencode) as a live run's adapter: `tool-rescue serve` in front of the endpoint,
 * the CLI pointed at it in the workspace with its own file tools, gated by its own permission
 * rules (writes inside the workspace only, no shell). What it did comes from its JSON events.
 */
import { existsSync, mkdirSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import {
  type AgentCliId,
  agentCli,
  agentsPrefix,
  type CliResult,
  installAgentCli,
  runCli,
} from "@tool-rescue/agent-clis"
import type { TurnOutcome, TurnRunner } from "./live-turn.ts"
import type { FileTools } from "./live-workspace.ts"
import { startServe } from "./serve-process.ts"

/** What opencode's `--format json` says about one tool call. */
interface ToolUse {
  readonly tool: string
  readonly status: string
  readonly input: Record<string, unknown>
  readonly error?: string
}

/** A turn's events, read: the text the CLI showed, its tool calls, and its error if it ended with one. */
export interface CliTurn {
  readonly text: string
  readonly tools: readonly ToolUse[]
  readonly error?: string
}

/** The words of opencode's denial (`permission` rule `deny`) in a tool call's error. */
const DENIED = "prevents you from using this specific tool call"

/**
 * Reads opencode's `--format json` output (one event a line; other lines are ignored).
 *
 * @example
 * ```ts
 * readCliTurn('{"type":"text","part":{"type":"text","text":"4173"}}\n').text // "4173"
 * ```
 */
export function readCliTurn(stdout: string): CliTurn {
  const texts: string[] = []
  const tools: ToolUse[] = []
  let error: string | undefined
  for (const line of stdout.split("\n")) {
    let event: { type?: unknown; part?: Record<string, unknown>; error?: unknown }
    try {
      event = JSON.parse(line)
    } catch {
      continue
    }
    const part = event.part ?? {}
    if (event.type === "text" && typeof part.text === "string") texts.push(part.text)
    else if (event.type === "tool_use" && typeof part.tool === "string") {
      const state = (part.state ?? {}) as { status?: unknown; input?: unknown; error?: unknown }
      tools.push({
        tool: part.tool,
        status: String(state.status),
        input:
          typeof state.input === "object" && state.input !== null
            ? (state.input as Record<string, unknown>)
            : {},
        ...(typeof state.error === "string" ? { error: state.error } : {}),
      })
    } else if (event.type === "error") {
      error = JSON.stringify(event.error ?? event)
    }
  }
  return { text: texts.join("\n"), tools, ...(error === undefined ? {} : { error }) }
}

/** Records the CLI's tool calls as the report counts them (a write it denied among `denied`). */
function record(tools: FileTools, turn: CliTurn, startedAt: number): void {
  for (const use of turn.tools) {
    const denied = use.status === "error" && use.error?.includes(DENIED) === true
    tools.runs.push({
      name: use.tool,
      input: use.input,
      outcome: denied ? "denied" : use.status === "completed" ? "ok" : "failed",
      output: use.error ?? "",
    })
    if (denied && (use.tool === "write" || use.tool === "edit") && typeof use.input.filePath === "string") {
      const target = resolve(tools.dir, use.input.filePath)
      // The gate decided inside the CLI: a file there from before this turn proves nothing.
      const existedBefore = existsSync(target) && statSync(target).mtimeMs < startedAt
      tools.denied.push({ path: use.input.filePath, target, existedBefore })
    }
  }
}

/**
 * The runner of an agent CLI: one `tool-rescue serve` (the built CLI, or `serveCommand`) per turn
 * in front of the live endpoint, the CLI (installed into {@link agentsPrefix} on first use) run
 * gated in the workspace. Leaks, recoveries and recovery errors come from the proxy's `/metrics`.
 *
 * @example
 * ```ts
 * const runOpencode = agentCliRunner("opencode")
 * ```
 */
export function agentCliRunner(id: AgentCliId, serveCommand?: readonly string[]): TurnRunner {
  const agent = agentCli(id)
  let bin: string | undefined
  return async (context) => {
    bin ??= installAgentCli(agent, agentsPrefix()).bin
    const startedAt = Date.now()
    const serve = await startServe(context.target.baseURL, serveCommand)
    let result: CliResult
    let counts: Awaited<ReturnType<typeof serve.counts>>
    try {
      // HOME beside the workspace: the CLI's sessions and caches are not the project's files.
      const home = join(dirname(context.tools.dir), `.${id}-home`)
      mkdirSync(home, { recursive: true })
      const { args, env } = agent.command({
        url: serve.url,
        model: context.target.model,
        apiKey: context.target.apiKey,
        home,
        cwd: context.tools.dir,
        prompt: context.task.prompt,
        gated: true,
      })
      result = await runCli(bin, args, env, context.tools.dir, {
        signal: context.signal,
        timeoutMs: 86_400_000,
      })
      counts = await serve.counts()
    } finally {
      await serve.close()
    }
    context.onCounts(counts)
    const turn = readCliTurn(result.stdout)
    record(context.tools, turn, startedAt)
    return outcome(id, turn, result, counts.errors)
  }
}

function outcome(
  id: AgentCliId,
  turn: CliTurn,
  result: CliResult,
  errors: Readonly<Record<string, number>>,
): TurnOutcome {
  const failed = turn.error !== undefined || result.code !== 0
  if (!failed) return { answer: turn.text }
  const message = turn.error ?? `${id} exited ${result.code}: ${result.stderr.trim().slice(-300)}`
  // The proxy ended the turn with a recovery error: an explicit error, not a failure.
  const code = Object.keys(errors)[0]
  if (code !== undefined) return { error: { code, message } }
  throw new Error(message)
}
