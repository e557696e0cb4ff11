/**
 * `pnpm e2e:agents [claude-code|claude-code-router|codex|opencode|qwen-code …]` — opt-in, not part of `pnpm check`.
 *
 * Installs real agent CLIs from the npm registry into a scratch prefix (`TOOL_RESCUE_AGENTS_PREFIX`
 * to reuse one where they are installed already) and drives each one non-interactively through
 * the recovery proxy (`startProxyServer`, as `tool-rescue serve` does) against the replay server,
 * in two scenarios. `recover`, scripted like a model that leaks its first tool call as text:
 *
 *   request with tools, no tool result yet     → a Qwen3-Coder leak of the CLI's shell tool
 *   the proxy's retry (carries the instruction) → the same call, structured
 *   request after the tool result               → the final answer
 *   request without tools (titles, summaries)   → plain text
 *
 * Checks: the leak never reaches the CLI's output, the tool ran exactly once (it appends a line
 * to a file in the CLI's working directory), the CLI printed the final answer. `double-leak`,
 * a model that leaks every time: the turn costs at most 2 upstream requests whatever the CLI's
 * retry policy, the error is printed once, the CLI exits. How to run each CLI offline: its row in
 * `agents` below. Results: `e2e/results.md`.
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type ReplayRequest, type ReplayStep, startReplayServer } from "@tool-rescue/testing"
import { type ProxyServer, startProxyServer } from "../src/node.ts"

const FINAL = "E2E-FINAL-ANSWER: the marker file has one line."
const MARKER = "ran.txt"

interface Agent {
  readonly id: string
  /** The package whose version the results name, and any other the run needs. */
  readonly npm: string
  readonly alsoNpm?: readonly string[]
  readonly bin: string
  /** The CLI's shell tool and the name of its command argument. */
  readonly tool: string
  readonly argument: string
  readonly extraArguments?: Record<string, string>
  /**
   * How many times the CLI prints one error: Codex's `exec` prints every error twice (as its
   * event and again as it exits; the same for an HTTP 400 straight from an upstream). @defaultValue 1
   */
  readonly errorEchoes?: number
  command(proxyUrl: string, home: string, cwd: string): { args: string[]; env: Record<string, string> }
  /**
   * What the CLI needs before it starts: a program between it and the proxy (Claude Code Router),
   * stopped after it, whose URL the CLI is given in place of the proxy's; or its settings.
   */
  front?(proxyUrl: string, home: string, prefix: string): Promise<Front>
}

const PROMPT = `Append a line to ${MARKER} with the shell tool, then say you are done.`
const SHELL = `echo ran >> ${MARKER}`
const common = (home: string) => ({
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  XDG_DATA_HOME: join(home, ".local/share"),
  NO_COLOR: "1",
})

interface Front {
  readonly url: string
  stop(): void
}

/** A free port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Waits until `url` answers (any status), or fails after about 30 s. */
async function answering(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(url)
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error(`e2e: ${url} never answered`)
}

/** Claude Code's environment for a base URL, offline and quiet. */
const claudeEnv = (baseUrl: string, home: string) => ({
  ...common(home),
  ANTHROPIC_BASE_URL: baseUrl,
  ANTHROPIC_API_KEY: "e2e-key",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
})
const claudeArgs = ["-p", PROMPT, "--output-format", "text", "--allowedTools=Bash", "--model", "replay-model"]

const agents: readonly Agent[] = [
  {
    id: "claude-code",
    npm: "@anthropic-ai/claude-code",
    bin: "claude",
    tool: "Bash",
    argument: "command",
    extraArguments: { description: "append a line" },
    command: (url, home) => ({ args: claudeArgs, env: claudeEnv(url.replace(/\/v1$/, ""), home) }),
  },
  {
    // Claude Code → Claude Code Router (Anthropic Messages in, Chat Completions out) → the proxy.
    id: "claude-code-router",
    npm: "@musistudio/claude-code-router",
    alsoNpm: ["@anthropic-ai/claude-code"],
    bin: "claude",
    // CCR drops the stream's error chunk; Claude Code resends without streaming and prints the
    // 422 as CCR words it: the upstream's message, then CCR's stack, whose first line repeats it.
    errorEchoes: 2,
    tool: "Bash",
    argument: "command",
    extraArguments: { description: "append a line" },
    command: (url, home) => ({ args: claudeArgs, env: claudeEnv(url, home) }),
    async front(proxyUrl, home, prefix) {
      const port = await freePort()
      const dir = join(home, ".claude-code-router")
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
              api_base_url: `${proxyUrl}/chat/completions`,
              api_key: "e2e-key",
              models: ["replay-model"],
            },
          ],
          Router: { default: "local,replay-model" },
        }),
      )
      const child = spawn(join(prefix, "node_modules/.bin/ccr"), ["start"], {
        env: { PATH: process.env.PATH ?? "", ...common(home) },
        stdio: "ignore",
      })
      const url = `http://127.0.0.1:${port}`
      await answering(url)
      return { url, stop: () => child.kill() }
    },
  },
  {
    id: "qwen-code",
    npm: "@qwen-code/qwen-code",
    bin: "qwen",
    tool: "run_shell_command",
    argument: "command",
    command: (url, home) => ({
      args: [
        "--yolo",
        "--auth-type",
        "openai",
        "--openai-base-url",
        url,
        "--openai-api-key",
        "e2e-key",
        "-m",
        "replay-model",
        PROMPT,
      ],
      env: common(home),
    }),
    // Offline: no usage statistics (their upload holds the process open after the answer).
    async front(proxyUrl, home) {
      mkdirSync(join(home, ".qwen"), { recursive: true })
      writeFileSync(
        join(home, ".qwen", "settings.json"),
        JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }),
      )
      return { url: proxyUrl, stop: () => undefined }
    },
  },
  {
    id: "codex",
    npm: "@openai/codex",
    bin: "codex",
    tool: "exec_command",
    argument: "cmd",
    errorEchoes: 2,
    command: (url, home) => ({
      args: [
        "exec",
        "--strict-config",
        "--ephemeral",
        "--skip-git-repo-check",
        "--sandbox",
        "workspace-write",
        "-m",
        "replay-model",
        "-c",
        "model_provider=local",
        "-c",
        `model_providers.local={name="local",base_url="${url}",wire_api="responses",env_key="LOCAL_KEY"}`,
        "-c",
        "check_for_update_on_startup=false",
        "-c",
        "analytics.enabled=false",
        PROMPT,
      ],
      env: { ...common(home), LOCAL_KEY: "e2e-key", CODEX_HOME: join(home, ".codex") },
    }),
  },
  {
    id: "opencode",
    npm: "opencode-ai",
    bin: "opencode",
    tool: "bash",
    argument: "command",
    extraArguments: { description: "append a line" },
    command: (url, home) => ({
      args: ["run", "--pure", "-m", "local/replay-model", PROMPT],
      env: {
        ...common(home),
        OPENCODE_CONFIG_CONTENT: JSON.stringify({
          $schema: "https://opencode.ai/config.json",
          provider: {
            local: {
              npm: "@ai-sdk/openai-compatible",
              options: { baseURL: url, apiKey: "e2e-key" },
              models: { "replay-model": { tool_call: true, limit: { context: 128000, output: 4096 } } },
            },
          },
          model: "local/replay-model",
          small_model: "local/replay-model",
          autoupdate: false,
          share: "disabled",
        }),
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_SHARE: "1",
      },
    }),
  },
]

/** The last input of a request is a tool result (in any of the three protocols). */
function afterToolResult(request: ReplayRequest): boolean {
  const body = request.body ?? {}
  const last = (
    Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : []
  ).at(-1) as Record<string, unknown> | undefined
  if (last === undefined) return false
  if (last.role === "tool" || last.type === "function_call_output") return true
  return (
    Array.isArray(last.content) &&
    last.content.some((part) => (part as { type?: unknown }).type === "tool_result")
  )
}

type Scenario = "recover" | "double-leak"

function scriptFor(agent: Agent, scenario: Scenario): (request: ReplayRequest) => ReplayStep {
  const args = JSON.stringify({ [agent.argument]: SHELL, ...agent.extraArguments })
  const leak =
    `I'll append the line now.\n<function=${agent.tool}>\n<parameter=${agent.argument}>\n${SHELL}\n</parameter>\n` +
    Object.entries(agent.extraArguments ?? {})
      .map(([name, value]) => `<parameter=${name}>\n${value}\n</parameter>\n`)
      .join("") +
    "</function>\n</tool_call>"
  return (request) => {
    const tools = Array.isArray(request.body?.tools) && request.body.tools.length > 0
    if (!tools) return { content: "E2E title" }
    if (afterToolResult(request)) return { content: FINAL, chunkSize: 7 }
    if (scenario === "recover" && request.rawBody.includes("as plain text instead of a structured tool call"))
      return { toolCalls: [{ name: agent.tool, arguments: args }] }
    return { content: leak, chunkSize: 5 }
  }
}

function run(bin: string, args: string[], env: Record<string, string>, cwd: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(bin, args, {
      cwd,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), 180_000)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** The requests of the agent's turn (with tools): titles and summaries are not the turn's. */
function turnRequests(requests: readonly ReplayRequest[]): number {
  return requests.filter((r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0).length
}

/** The repeated-markup message (every protocol's form of it says this). */
const REPEATED = "wrote its tool call as text instead of a structured call"

function countOf(text: string, part: string): number {
  return text.split(part).length - 1
}

interface Outcome {
  readonly checks: Readonly<Record<string, boolean>>
  readonly passed: boolean
  /** Upstream requests of the agent's turn. */
  readonly requests: number
  /** Requests of the turn the CLI sent the proxy (its resends among them). */
  readonly sent: number
}

/** Requests the proxy got on its recovered routes (those with tools), from its `/metrics`. */
async function recoveredRequests(proxy: ProxyServer): Promise<number> {
  let sum = 0
  for (const line of (await proxy.proxy.metrics.render()).split("\n"))
    if (line.startsWith("tool_rescue_proxy_requests_total{") && line.includes('mode="recovered"'))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1))
  return sum
}

async function runScenario(agent: Agent, scenario: Scenario, bin: string, prefix: string): Promise<Outcome> {
  const home = mkdtempSync(join(tmpdir(), `tool-rescue-${agent.id}-home-`))
  const cwd = join(home, "work")
  mkdirSync(cwd, { recursive: true })
  mkdirSync(join(home, ".codex"), { recursive: true })
  const upstream = await startReplayServer({ script: scriptFor(agent, scenario) })
  const proxy = await startProxyServer({ upstream: upstream.url, port: 0, graceMs: 1000 })
  const front = await agent.front?.(proxy.url, home, prefix)
  try {
    const { args, env } = agent.command(front?.url ?? proxy.url, home, cwd)
    const result = await run(bin, args, env, cwd)
    const output = result.stdout + result.stderr
    let lines = 0
    try {
      lines = readFileSync(join(cwd, MARKER), "utf8").trim().split("\n").filter(Boolean).length
    } catch {
      lines = 0
    }
    const offScreen = !output.includes(`<function=${agent.tool}>`) && !output.includes("</tool_call>")
    const checks: Record<string, boolean> =
      scenario === "recover"
        ? {
            "leak off screen": offScreen,
            "tool ran once": lines === 1,
            "final answer printed": result.stdout.includes("E2E-FINAL-ANSWER"),
            "one retry":
              upstream.requests.filter((r) => r.rawBody.includes("as plain text instead of")).length === 1,
          }
        : {
            "leak off screen": offScreen,
            "≤ 2 upstream requests": turnRequests(upstream.requests) <= 2,
            "error printed once": countOf(output, REPEATED) === (agent.errorEchoes ?? 1),
            exited: result.code !== null,
          }
    const passed = Object.values(checks).every(Boolean)
    if (!passed || process.env.TOOL_RESCUE_E2E_VERBOSE === "1")
      console.error(
        `e2e: ${agent.id} ${scenario} ${passed ? "passed" : "failed"} (exit ${result.code}, ${upstream.requests.length} upstream requests)\n--- stdout:\n${result.stdout.slice(-3000)}\n--- stderr:\n${result.stderr.slice(-3000)}`,
      )
    return { checks, passed, requests: turnRequests(upstream.requests), sent: await recoveredRequests(proxy) }
  } finally {
    front?.stop()
    await proxy.close()
    await upstream.close()
  }
}

const wanted = process.argv.slice(2)
const selected = agents.filter((agent) => wanted.length === 0 || wanted.includes(agent.id))
const prefix = process.env.TOOL_RESCUE_AGENTS_PREFIX ?? mkdtempSync(join(tmpdir(), "tool-rescue-agents-"))
const rows: string[] = []
let failed = 0
for (const agent of selected) {
  const bin = join(prefix, "node_modules/.bin", agent.bin)
  const packages = [agent.npm, ...(agent.alsoNpm ?? [])]
  if (!packages.every((name) => existsSync(join(prefix, "node_modules", name, "package.json")))) {
    console.error(`e2e: installing ${packages.join(", ")} into ${prefix} …`)
    execFileSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", ...packages], {
      stdio: "inherit",
    })
  }
  const version = JSON.parse(
    readFileSync(join(prefix, "node_modules", agent.npm, "package.json"), "utf8"),
  ).version
  for (const scenario of ["recover", "double-leak"] as const) {
    const outcome = await runScenario(agent, scenario, bin, prefix)
    if (!outcome.passed) failed++
    rows.push(
      `| ${agent.id} ${version} | ${scenario} | ${Object.entries(outcome.checks)
        .map(([name, pass]) => `${pass ? "✓" : "✗"} ${name}`)
        .join(" · ")} | ${outcome.sent} | ${outcome.requests} |`,
    )
  }
}
// The results file keeps the rows of CLIs not run this time.
const resultsFile = new URL("./results.md", import.meta.url)
let kept: string[] = []
try {
  kept = readFileSync(resultsFile, "utf8")
    .split("\n")
    .filter((line) => /^\| [a-z]/.test(line) && !selected.some((agent) => line.startsWith(`| ${agent.id} `)))
} catch {
  kept = []
}
const report = [
  "# e2e: real agent CLIs through the proxy",
  "",
  `Node ${process.versions.node}. \`recover\`: each CLI leaks its first shell call as Qwen3-Coder text, the proxy retries, the structured call runs, the CLI prints the final answer. \`double-leak\`: the retry leaks too; the turn ends with the protocol's final error, whatever the CLI's retry policy.`,
  "",
  "| CLI | scenario | checks | requests of the turn: from the CLI | upstream |",
  "|---|---|---|---:|---:|",
  ...[...kept, ...rows].sort(),
  "",
].join("\n")
writeFileSync(resultsFile, report)
console.log(report)
process.exit(failed === 0 ? 0 : 1)
