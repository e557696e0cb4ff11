/**
 * `pnpm e2e:agents [claude-code|claude-code-router|codex|opencode|qwen-code …]` — opt-in, not part of `pnpm check`.
 *
 * Installs real agent CLIs from the npm registry into a scratch prefix (`TOOL_RESCUE_AGENTS_PREFIX`,
 * default `<tmp>/tool-rescue-agents`, reused by later runs) and drives each one non-interactively through
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
 * `agentClis` of `@tool-rescue/agent-clis` (shared with `pnpm e2e:live`). Results: `e2e/results.md`.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type AgentCli,
  afterToolResult,
  agentClis,
  agentsPrefix,
  installAgentCli,
  offersTools,
  runCli,
} from "@tool-rescue/agent-clis"
import { type ReplayRequest, type ReplayStep, startReplayServer } from "@tool-rescue/testing"
import { type ProxyServer, startProxyServer } from "../src/node.ts"

const FINAL = "E2E-FINAL-ANSWER: the marker file has one line."
const MARKER = "ran.txt"
const PROMPT = `Append a line to ${MARKER} with the shell tool, then say you are done.`
const SHELL = `echo ran >> ${MARKER}`

type Scenario = "recover" | "double-leak"

function scriptFor(agent: AgentCli, scenario: Scenario): (request: ReplayRequest) => ReplayStep {
  const args = JSON.stringify({ [agent.shellArgument]: SHELL, ...agent.shellExtraArguments })
  const leak =
    `I'll append the line now.\n<function=${agent.shellTool}>\n<parameter=${agent.shellArgument}>\n${SHELL}\n</parameter>\n` +
    Object.entries(agent.shellExtraArguments ?? {})
      .map(([name, value]) => `<parameter=${name}>\n${value}\n</parameter>\n`)
      .join("") +
    "</function>\n</tool_call>"
  return (request) => {
    if (!offersTools(request)) return { content: "E2E title" }
    if (afterToolResult(request)) return { content: FINAL, chunkSize: 7 }
    if (scenario === "recover" && request.rawBody.includes("as plain text instead of a structured tool call"))
      return { toolCalls: [{ name: agent.shellTool, arguments: args }] }
    return { content: leak, chunkSize: 5 }
  }
}

/** The requests of the agent's turn (with tools): titles and summaries are not the turn's. */
function turnRequests(requests: readonly ReplayRequest[]): number {
  return requests.filter(offersTools).length
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

async function runScenario(
  agent: AgentCli,
  scenario: Scenario,
  bin: string,
  prefix: string,
): Promise<Outcome> {
  const home = mkdtempSync(join(tmpdir(), `tool-rescue-${agent.id}-home-`))
  const cwd = join(home, "work")
  mkdirSync(cwd, { recursive: true })
  const upstream = await startReplayServer({ script: scriptFor(agent, scenario) })
  const proxy = await startProxyServer({ upstream: upstream.url, port: 0, graceMs: 1000 })
  const run = { url: proxy.url, model: "replay-model", apiKey: "e2e-key", home, cwd, prompt: PROMPT }
  const front = await agent.front?.(run, prefix)
  try {
    const { args, env } = agent.command({ ...run, url: front?.url ?? proxy.url })
    const result = await runCli(bin, args, env, cwd)
    const output = result.stdout + result.stderr
    let lines = 0
    try {
      lines = readFileSync(join(cwd, MARKER), "utf8").trim().split("\n").filter(Boolean).length
    } catch {
      lines = 0
    }
    const offScreen = !output.includes(`<function=${agent.shellTool}>`) && !output.includes("</tool_call>")
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
const selected = agentClis.filter((agent) => wanted.length === 0 || wanted.includes(agent.id))
const prefix = agentsPrefix()
const rows: string[] = []
let failed = 0
for (const agent of selected) {
  const { bin, version } = installAgentCli(agent, prefix)
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
