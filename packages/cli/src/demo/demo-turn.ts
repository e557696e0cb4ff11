import type { FailedResponse, RecoveryEvent } from "@tool-rescue/recovery"
import type { DemoTrace } from "./demo-trace.ts"
import type { DemoWorkspace, Scenario } from "./demo-world.ts"

/** The adapters the demo plays through. */
export type AdapterId = "openai" | "ai-sdk" | "effect" | "langchain" | "proxy"

/** A structured call the turn made, and what the tool returned. */
export interface ToolRun {
  readonly name: string
  readonly input: string
  readonly ok: boolean
  readonly output: string
}

/** What a runner reports about one turn. */
export interface TurnOutcome {
  readonly tools: ToolRun[]
  /** The final answer's visible text ("" when the turn ended without one). */
  answer: string
  /** The recovery error the turn ended with: its code and message. */
  error: { readonly code: string; readonly message: string } | undefined
}

/** What a runner gets for one turn. */
export interface TurnContext {
  readonly baseURL: string
  readonly scenario: Scenario
  readonly trace: DemoTrace
  readonly workspace: DemoWorkspace
  /** The adapter's `onEvent`: records and traces recovery events. */
  readonly onEvent: (event: RecoveryEvent) => void
  /** The adapter's `persistFailed`. */
  readonly persistFailed: (failed: FailedResponse) => Promise<void>
  /** Runs a tool for real, traces it, and returns its output (errors become a failed output). */
  readonly runTool: (name: string, input: unknown) => Promise<ToolRun>
}

/** One adapter's way to play a turn. */
export type TurnRunner = (context: TurnContext, outcome: TurnOutcome) => Promise<void>

/**
 * Runs the demo's tools: `read_file` reads the scratch workspace for real; `bash` is offered
 * to the model (an agent offers it) but refuses to run anything in the demo.
 */
export async function executeTool(workspace: DemoWorkspace, name: string, input: unknown): Promise<ToolRun> {
  const text = JSON.stringify(input) ?? "undefined"
  try {
    if (name === "read_file") {
      const path =
        typeof input === "object" && input !== null ? (input as { path?: unknown }).path : undefined
      if (typeof path !== "string") throw new Error("read_file needs a string path")
      return { name, input: text, ok: true, output: await workspace.readFile(path) }
    }
    if (name === "bash") throw new Error("bash does not run commands in the demo")
    throw new Error(`no tool named ${name}`)
  } catch (error) {
    return { name, input: text, ok: false, output: error instanceof Error ? error.message : String(error) }
  }
}
