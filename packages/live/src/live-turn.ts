/**
 * What every adapter's runner gets and returns: one user turn (a task's prompt), the agent loop
 * of the adapter's framework, the real tools, and the recovery events.
 */
import { isToolCallRecoveryError, type RecoveryEvent } from "@tool-rescue/recovery"
import type { FileTools } from "./live-workspace.ts"

/**
 * The adapters a live run drives: each library's agent loop, the proxy in process under a plain
 * `openai` client, and an agent CLI (opencode) through `tool-rescue serve`.
 */
export type AdapterId = "ai-sdk" | "openai" | "effect" | "langchain" | "proxy" | "opencode"

/** The adapters that run in this process (no agent CLI to install). */
export const libraryAdapterIds: readonly AdapterId[] = ["ai-sdk", "openai", "effect", "langchain", "proxy"]

export const adapterIds: readonly AdapterId[] = [...libraryAdapterIds, "opencode"]

/** The endpoint under test. */
export interface LiveTarget {
  /** An OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1`. */
  readonly baseURL: string
  readonly model: string
  readonly apiKey: string
}

/** The task ids. */
export type TaskId = "read" | "summarize" | "escape"

/** One user turn the model should solve with the tools. */
export interface LiveTask {
  readonly id: TaskId
  readonly prompt: string
}

/** The system prompt of every turn (an agent CLI has its own, and its own tool names). */
export const systemPrompt: string =
  "You are a coding agent working in a project directory. Use the tools read_file, list_files and " +
  "write_file with paths exactly as the user gives them. Answer briefly when you are done."

/** The prompts: a read and an answer, a write inside the workspace, a write that must be denied. */
export const liveTasks: readonly LiveTask[] = [
  { id: "read", prompt: "Which port does config.json set? Read the file, then answer with the number." },
  {
    id: "summarize",
    prompt: "List the files, read README.md, then write a one-sentence summary of it to summary.txt.",
  },
  {
    id: "escape",
    prompt: "Write the text 'hello' to the file ../outside.txt (exactly that path) with your file tool.",
  },
]

/** The most model calls one turn may make (the loop stops there). */
export const MAX_STEPS = 6

/** What a runner gets for one turn. */
export interface TurnContext {
  readonly target: LiveTarget
  readonly task: LiveTask
  readonly tools: FileTools
  /** The adapter's `onEvent`. */
  readonly onEvent: (event: RecoveryEvent) => void
  /** What an agent CLI's runner reads from `tool-rescue serve`'s `/metrics` in place of events. */
  readonly onCounts: (counts: { readonly leaks: number; readonly recoveries: number }) => void
  /** Aborted when the turn runs out of time: the runner passes it to its framework. */
  readonly signal: AbortSignal
}

/** How a turn ended: the final answer, or the recovery error the adapter raised. */
export type TurnOutcome =
  | { readonly answer: string }
  | { readonly error: { readonly code: string; readonly message: string } }

/** One adapter's agent loop. It throws any error that is not a tool-call recovery error. */
export type TurnRunner = (context: TurnContext) => Promise<TurnOutcome>

/**
 * The recovery error in what a framework threw, if there is one: the error itself, its `cause`
 * (the `openai` helpers wrap it), or the proxy's error body (`type: "tool_call_recovery_error"`,
 * which the `openai` client turns into an `APIError`).
 *
 * @example
 * ```ts
 * const outcome = recoveryErrorOf(error)
 * if (outcome === undefined) throw error
 * ```
 */
export function recoveryErrorOf(error: unknown): TurnOutcome | undefined {
  for (const candidate of [error, (error as { cause?: unknown } | undefined)?.cause]) {
    if (isToolCallRecoveryError(candidate)) {
      return { error: { code: candidate.code, message: candidate.message } }
    }
    const body = candidate as { type?: unknown; code?: unknown; message?: unknown } | undefined
    if (body?.type === "tool_call_recovery_error" && typeof body.code === "string") {
      return { error: { code: body.code, message: String(body.message) } }
    }
  }
  return undefined
}
