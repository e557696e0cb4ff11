/**
 * Real coding-agent CLIs from the npm registry, and how to run each one non-interactively against
 * a local OpenAI- or Anthropic-compatible server with no login (`/work/shared/notes/agent-clis.md`
 * has the facts behind each row). Each row is data: the package, the binary, the CLI's shell tool,
 * and the command line and environment of one run.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { answering, freePort, spawnQuiet } from "./processes.ts"

/** The agent CLIs this module knows how to run. */
export type AgentCliId = "claude-code" | "claude-code-router" | "qwen-code" | "codex" | "opencode"

/** One run of a CLI: where it talks to, as whom, in which directories, and the user's prompt. */
export interface AgentInvocation {
  /** The server's base URL, ending in `/v1` (a CLI that wants the bare origin gets it without). */
  readonly url: string
  readonly model: string
  readonly apiKey: string
  /** A private HOME (the CLI's settings, sessions and caches go there). */
  readonly home: string
  /** The working directory: the project the agent works on. */
  readonly cwd: string
  readonly prompt: string
  /**
   * The approval gate: writes inside `cwd` are approved, writes outside it are denied (the CLI
   * tells the model so), and the shell, which could write anywhere, is not offered. Only CLIs
   * with `gate: true` support it. @defaultValue false (the CLI's shell may run, writes anywhere)
   */
  readonly gated?: boolean
}

/** A program a run needs between the CLI and the server (Claude Code Router), stopped after it. */
export interface AgentFront {
  /** The URL the CLI is given in place of the server's. */
  readonly url: string
  stop(): void
}

/** How to install and run one CLI. */
export interface AgentCli {
  readonly id: AgentCliId
  /** The package whose version a report names. */
  readonly npm: string
  /** Other packages the run needs. */
  readonly alsoNpm?: readonly string[]
  readonly bin: string
  /** The CLI's shell tool and the name of its command argument (what a scripted model calls). */
  readonly shellTool: string
  readonly shellArgument: string
  /** Arguments the shell tool requires besides the command. */
  readonly shellExtraArguments?: Readonly<Record<string, string>>
  /** The CLI supports {@link AgentInvocation.gated}. */
  readonly gate: boolean
  /**
   * How many times the CLI prints one error: Codex's `exec` prints every error twice (as its
   * event and again as it exits; the same for an HTTP 400 straight from an upstream). @defaultValue 1
   */
  readonly errorEchoes?: number
  command(run: AgentInvocation): { args: string[]; env: Record<string, string> }
  /** What the CLI needs before it starts: its settings, or a program in front of the server. */
  front?(run: AgentInvocation, prefix: string): Promise<AgentFront>
}

/** The environment every CLI gets: its private HOME, and no colours in its output. */
const common = (home: string) => ({
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  XDG_DATA_HOME: join(home, ".local/share"),
  NO_COLOR: "1",
})

/** Claude Code's environment for a base URL (no `/v1`), offline and quiet. */
const claudeEnv = (baseUrl: string, run: AgentInvocation) => ({
  ...common(run.home),
  ANTHROPIC_BASE_URL: baseUrl,
  ANTHROPIC_API_KEY: run.apiKey,
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
})
const claudeArgs = (run: AgentInvocation) => [
  "-p",
  run.prompt,
  "--output-format",
  "text",
  "--allowedTools=Bash",
  "--model",
  run.model,
]

/**
 * opencode's configuration: the server as an `@ai-sdk/openai-compatible` provider, no update,
 * no sharing; gated, writes inside the working directory only and no shell (`permission`).
 */
function opencodeConfig(run: AgentInvocation): string {
  return JSON.stringify({
    $schema: "https://opencode.ai/config.json",
    provider: {
      local: {
        npm: "@ai-sdk/openai-compatible",
        options: { baseURL: run.url, apiKey: run.apiKey },
        models: { [run.model]: { tool_call: true, limit: { context: 128000, output: 4096 } } },
      },
    },
    model: `local/${run.model}`,
    small_model: `local/${run.model}`,
    autoupdate: false,
    share: "disabled",
    // `ask` has nobody to ask in `opencode run`: a rule must allow or deny. A denied call comes
    // back to the model as a tool error; a denied tool (bash) is not offered at all.
    ...(run.gated === true
      ? {
          permission: {
            edit: "allow",
            external_directory: "deny",
            bash: "deny",
            webfetch: "deny",
            task: "deny",
          },
        }
      : {}),
  })
}

/**
 * The CLIs, as `pnpm e2e:agents` runs them through the proxy and `pnpm e2e:live` runs opencode.
 *
 * @example
 * ```ts
 * const opencode = agentClis.find((agent) => agent.id === "opencode")!
 * const { args, env } = opencode.command({ url, model: "m", apiKey: "k", home, cwd, prompt: "hi" })
 * ```
 */
export const agentClis: readonly AgentCli[] = [
  {
    id: "claude-code",
    npm: "@anthropic-ai/claude-code",
    bin: "claude",
    shellTool: "Bash",
    shellArgument: "command",
    shellExtraArguments: { description: "append a line" },
    gate: false,
    command: (run) => ({ args: claudeArgs(run), env: claudeEnv(run.url.replace(/\/v1$/, ""), run) }),
  },
  {
    // Claude Code → Claude Code Router (Anthropic Messages in, Chat Completions out) → the server.
    id: "claude-code-router",
    npm: "@musistudio/claude-code-router",
    alsoNpm: ["@anthropic-ai/claude-code"],
    bin: "claude",
    // CCR drops the stream's error chunk; Claude Code resends without streaming and prints the
    // 422 as CCR words it: the upstream's message, then CCR's stack, whose first line repeats it.
    errorEchoes: 2,
    shellTool: "Bash",
    shellArgument: "command",
    shellExtraArguments: { description: "append a line" },
    gate: false,
    command: (run) => ({ args: claudeArgs(run), env: claudeEnv(run.url, run) }),
    async front(run, prefix) {
      const port = await freePort()
      const dir = join(run.home, ".claude-code-router")
      mkdirSync(dir, { recursive: true })
      writeFileSync(
        join(dir, "config.json"),
        JSON.stringify({
          HOST: "127.0.0.1",
          PORT: port,
          LOG: false,
          NON_INTERACTIVE_MODE: true,
          Providers: [
            {
              name: "local",
              api_base_url: `${run.url}/chat/completions`,
              api_key: run.apiKey,
              models: [run.model],
            },
          ],
          Router: { default: `local,${run.model}` },
        }),
      )
      const router = spawnQuiet(join(prefix, "node_modules/.bin/ccr"), ["start"], common(run.home))
      const url = `http://127.0.0.1:${port}`
      await answering(url, router.ended)
      return { url, stop: () => router.stop() }
    },
  },
  {
    id: "qwen-code",
    npm: "@qwen-code/qwen-code",
    bin: "qwen",
    shellTool: "run_shell_command",
    shellArgument: "command",
    gate: false,
    command: (run) => ({
      args: [
        "--yolo",
        "--auth-type",
        "openai",
        "--openai-base-url",
        run.url,
        "--openai-api-key",
        run.apiKey,
        "-m",
        run.model,
        run.prompt,
      ],
      env: common(run.home),
    }),
    // Offline: no usage statistics (their upload holds the process open after the answer).
    async front(run) {
      mkdirSync(join(run.home, ".qwen"), { recursive: true })
      writeFileSync(
        join(run.home, ".qwen", "settings.json"),
        JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }),
      )
      return { url: run.url, stop: () => undefined }
    },
  },
  {
    id: "codex",
    npm: "@openai/codex",
    bin: "codex",
    shellTool: "exec_command",
    shellArgument: "cmd",
    errorEchoes: 2,
    gate: false,
    command: (run) => {
      mkdirSync(join(run.home, ".codex"), { recursive: true })
      return {
        args: [
          "exec",
          "--strict-config",
          "--ephemeral",
          "--skip-git-repo-check",
          "--sandbox",
          "workspace-write",
          "-m",
          run.model,
          "-c",
          "model_provider=local",
          "-c",
          `model_providers.local={name="local",base_url="${run.url}",wire_api="responses",env_key="LOCAL_KEY"}`,
          "-c",
          "check_for_update_on_startup=false",
          "-c",
          "analytics.enabled=false",
          run.prompt,
        ],
        env: { ...common(run.home), LOCAL_KEY: run.apiKey, CODEX_HOME: join(run.home, ".codex") },
      }
    },
  },
  {
    id: "opencode",
    npm: "opencode-ai",
    bin: "opencode",
    shellTool: "bash",
    shellArgument: "command",
    shellExtraArguments: { description: "append a line" },
    gate: true,
    command: (run) => ({
      // `--format json`: one event a line (text parts, tool calls with their status).
      args: ["run", "--pure", "--format", "json", "-m", `local/${run.model}`, run.prompt],
      env: {
        ...common(run.home),
        OPENCODE_CONFIG_CONTENT: opencodeConfig(run),
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_SHARE: "1",
      },
    }),
  },
]

/**
 * The row of `id`.
 *
 * @example
 * ```ts
 * agentCli("opencode").bin // "opencode"
 * ```
 */
export function agentCli(id: AgentCliId): AgentCli {
  const agent = agentClis.find((row) => row.id === id)
  if (agent === undefined) throw new Error(`no agent CLI ${id}`)
  return agent
}
