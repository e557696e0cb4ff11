/**
 * The world the demo plays in: a scratch workspace on disk with a real file to read, the real
 * `read_file` tool over it, a store for failed responses, and the replay server's script — a
 * model that leaks a Qwen3-Coder call with the opening `<tool_call>` missing.
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, relative, resolve, sep } from "node:path"
import type { FailedResponse } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import type { ReplayRequest, ReplayStep } from "@tool-rescue/testing/replay"

/** The two scenarios every adapter plays. */
export type ScenarioId = "recovered" | "leaks-twice"

/** One scenario: what the user asks, and what the scripted model does with it. */
export interface Scenario {
  readonly id: ScenarioId
  readonly title: string
  readonly prompt: string
}

export const scenarios: readonly Scenario[] = [
  {
    id: "recovered",
    title: "the model leaks a Qwen3-Coder call with the opening <tool_call> missing",
    prompt: "Which port does the dev server listen on? Check src/server.ts.",
  },
  {
    id: "leaks-twice",
    title: "the model leaks again on the retry",
    prompt: "Run the test suite and tell me what fails.",
  },
]

/** The tools every demo turn offers. */
export const demoToolNames: readonly string[] = ["read_file", "bash"]

export const toolDescriptions: { readonly read_file: string; readonly bash: string } = {
  read_file: "Read a text file from the workspace and return its content.",
  bash: "Run a shell command in the workspace and return its output.",
} as const

/** The demo's tools as Chat Completions declares them (the `openai` client and the proxy's plain client). */
export const chatTools: ReadonlyArray<{
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description: string
    readonly parameters: Record<string, unknown>
  }
}> = [
  {
    type: "function",
    function: {
      name: "read_file",
      description: toolDescriptions.read_file,
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  },
  {
    type: "function",
    function: {
      name: "bash",
      description: toolDescriptions.bash,
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    },
  },
]

/** The system prompt of every demo turn. */
export const demoSystemPrompt: string =
  "You are a coding agent in the user's repository. Use the tools to look at files before you answer."

/**
 * What the model streams. Real leaks have this shape: ollama/ollama#16686 (prose, a blank line,
 * `<function=…>` with no `<tool_call>`, an orphan `</tool_call>`), and Hermes JSON on a retry.
 */
export const modelText: {
  readonly recoveredLeak: string
  readonly twiceLeak: string
  readonly twiceRetryLeak: string
} = {
  recoveredLeak:
    "I'll read the server entry point to find the port.\n\n" +
    "<function=read_file>\n<parameter=path>\nsrc/server.ts\n</parameter>\n</function>\n</tool_call>",
  twiceLeak:
    "I'll run the test suite to see what fails.\n\n" +
    "<function=bash>\n<parameter=command>\nnpm test\n</parameter>\n</function>\n</tool_call>",
  twiceRetryLeak:
    'Running the tests now.\n<tool_call>\n{"name": "bash", "arguments": {"command": "npm test"}}\n</tool_call>',
} as const

/** The file the model reads. */
export const serverSource: string = `import { createServer } from "node:http"
import { handler } from "./routes.ts"

export const config = {
  host: "127.0.0.1",
  port: Number(process.env.PORT ?? 8080),
}

createServer(handler).listen(config.port, config.host)
`

/** A failed response as the demo's `persistFailed` stores it (one JSON line each). */
export interface FailedRecord {
  readonly adapter: string
  readonly scenario: string
  readonly status: string
  readonly round: number
  readonly text: string
}

/** The scratch workspace. */
export interface DemoWorkspace {
  readonly root: string
  /** Where failed responses are persisted (JSON Lines, one record a failed response). */
  readonly failedLog: string
  /** The real `read_file`: reads a file under `root` (never outside it). */
  readFile(path: string): Promise<string>
  /** The `persistFailed` hook: appends the failed response with status "failed". */
  persistFailed(adapter: string, scenario: ScenarioId): (failed: FailedResponse) => Promise<void>
  /** Records persisted so far. */
  failedRecords(): Promise<readonly FailedRecord[]>
  remove(): Promise<void>
}

/**
 * Creates the scratch workspace in the OS temp directory.
 *
 * @example
 * ```ts
 * const workspace = await createDemoWorkspace()
 * await workspace.readFile("src/server.ts")
 * await workspace.remove()
 * ```
 */
export async function createDemoWorkspace(): Promise<DemoWorkspace> {
  const root = await mkdtemp(join(tmpdir(), "tool-rescue-demo-"))
  await mkdir(join(root, "src"))
  await writeFile(join(root, "src", "server.ts"), serverSource)
  await writeFile(
    join(root, "package.json"),
    `${JSON.stringify({ name: "demo-app", scripts: { test: "vitest run" } }, null, 2)}\n`,
  )
  const failedLog = join(root, ".agent", "failed-responses.jsonl")
  await mkdir(join(root, ".agent"))
  return {
    root,
    failedLog,
    async readFile(path) {
      const target = resolve(root, path)
      const inside = relative(root, target)
      if (inside.startsWith(`..${sep}`) || inside === ".." || resolve(target) === resolve(root)) {
        throw new Error(`read_file: ${path} is outside the workspace`)
      }
      return readFile(target, "utf8")
    },
    persistFailed(adapter, scenario) {
      return async (failed) => {
        const record = {
          adapter,
          scenario,
          status: "failed",
          round: failed.round,
          text: failed.text,
          markup: failed.markup.map((m) => ({ format: m.format, toolName: m.toolName })),
        }
        await appendFile(failedLog, `${JSON.stringify(record)}\n`)
      }
    },
    async failedRecords() {
      let text: string
      try {
        text = await readFile(failedLog, "utf8")
      } catch {
        return []
      }
      return text
        .split("\n")
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as FailedRecord)
    },
    remove: () => rm(root, { recursive: true, force: true }),
  }
}

/** Streamed a few characters at a time, like a model's tokens. */
const CHUNK_SIZES: readonly number[] = [3, 5, 4, 6]

/**
 * The scripted model, as a function of the request (stateless, so the three adapters and both
 * scenarios share one server):
 * - a request that carries a tool result gets the final answer, read from that tool result;
 * - a retry (it carries the host instruction's mark, `isRetryRequest`) gets the structured call (scenario 1) or a
 *   second leak (scenario 2);
 * - a first request gets the leak.
 *
 * Text is streamed in small deltas, `chunkDelayMs` apart.
 *
 * @example
 * ```ts
 * const server = await startReplayServer({ script: (request) => demoScript(request, 12) })
 * ```
 */
export function demoScript(request: ReplayRequest, chunkDelayMs = 0): ReplayStep {
  const live = { chunkSize: CHUNK_SIZES, chunkDelayMs }
  const raw = request.rawBody
  const scenario = raw.includes(scenarios[1]!.prompt) ? "leaks-twice" : "recovered"
  const toolResult = toolResultText(request)
  if (toolResult !== undefined) {
    const port = /PORT \?\? (\d+)/.exec(toolResult)?.[1]
    const host = /host: \\?"([^"\\]+)\\?"/.exec(toolResult)?.[1]
    return {
      ...live,
      content:
        port === undefined
          ? "I could not find the port in src/server.ts."
          : `The dev server listens on port ${port} (set PORT to override it), bound to ${host ?? "its default host"}.`,
    }
  }
  const retry = isRetryRequest(raw)
  if (scenario === "recovered") {
    if (retry) return { toolCalls: [{ name: "read_file", arguments: '{"path":"src/server.ts"}' }] }
    return { ...live, content: modelText.recoveredLeak }
  }
  return { ...live, content: retry ? modelText.twiceRetryLeak : modelText.twiceLeak }
}

/** The content of the tool-result message(s) of a chat request, if it has any. */
function toolResultText(request: ReplayRequest): string | undefined {
  const messages = request.body?.messages
  if (!Array.isArray(messages)) return undefined
  const results = messages.filter((message) => message.role === "tool")
  if (results.length === 0) return undefined
  return results
    .map((message) =>
      typeof message.content === "string" ? message.content : JSON.stringify(message.content),
    )
    .join("\n")
}
