/**
 * `pnpm e2e:live --base-url URL --model M [--api-key K] [--only a,b] [--keep] [--markdown | --json]`
 *
 * The ADR's opt-in integration test: every adapter's agent loop, the proxy, and an agent CLI
 * (opencode, through `tool-rescue serve`) against a live OpenAI-compatible endpoint, with real
 * file tools in a disposable workspace behind an approval gate. Skipped (exit 0) without a URL. Exit 1 when a turn failed for another reason than a
 * tool-call recovery error, or a denied write ran; 2 on bad arguments.
 */
import { parseArgs } from "node:util"
import { formatJson, formatMarkdown, formatTable, passed } from "./live-report.ts"
import { type AdapterId, adapterIds } from "./live-turn.ts"

const usage =
  "usage: pnpm e2e:live --base-url URL --model M [--api-key K] [--only ai-sdk,openai,effect,langchain,proxy,opencode] [--turn-timeout S] [--keep] [--markdown | --json]\n" +
  "       (or TOOL_RESCUE_LIVE_URL, TOOL_RESCUE_LIVE_MODEL, TOOL_RESCUE_LIVE_API_KEY)"

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    // `pnpm … e2e:live -- --base-url …` passes the `--` on.
    args: argv.filter((arg) => arg !== "--"),
    options: {
      "base-url": { type: "string" },
      model: { type: "string" },
      "api-key": { type: "string" },
      only: { type: "string" },
      "turn-timeout": { type: "string", default: "600" },
      keep: { type: "boolean", default: false },
      markdown: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  })
  if (values.help) {
    console.log(usage)
    return 0
  }
  const baseURL = values["base-url"] ?? process.env.TOOL_RESCUE_LIVE_URL
  if (baseURL === undefined || baseURL === "") {
    console.log("e2e:live skipped: no --base-url (or TOOL_RESCUE_LIVE_URL) given.")
    return 0
  }
  const model = values.model ?? process.env.TOOL_RESCUE_LIVE_MODEL
  if (model === undefined || model === "") {
    console.error(`e2e:live: --model (or TOOL_RESCUE_LIVE_MODEL) is required with a URL.\n${usage}`)
    return 2
  }
  const only = values.only?.split(",").map((id) => id.trim()) ?? adapterIds
  const unknown = only.filter((id) => !adapterIds.includes(id as AdapterId))
  if (unknown.length > 0) {
    console.error(`e2e:live: unknown adapter ${unknown.join(", ")}.\n${usage}`)
    return 2
  }
  const seconds = Number(values["turn-timeout"])
  if (!(seconds > 0)) {
    console.error(`e2e:live: --turn-timeout takes a number of seconds.\n${usage}`)
    return 2
  }
  // Loaded only now: the frameworks take seconds to import, a skipped run needs none of them.
  const { runLive } = await import("./run-live.ts")
  if (only.includes("opencode")) {
    // Installed before the run (once; hundreds of MB), so that its time is no turn's.
    const { agentCli, agentsPrefix, installAgentCli } = await import("@tool-rescue/agent-clis")
    installAgentCli(agentCli("opencode"), agentsPrefix())
  }
  const report = await runLive({
    target: {
      baseURL: baseURL.replace(/\/+$/, ""),
      model,
      apiKey: values["api-key"] ?? process.env.TOOL_RESCUE_LIVE_API_KEY ?? "local",
    },
    adapters: only as AdapterId[],
    turnTimeoutMs: seconds * 1000,
    keep: values.keep,
    onTask: (adapter, task) =>
      console.error(
        `${adapter} ${task.task}: ${task.outcome}${task.code ? ` ${task.code}` : ""} (${task.ms} ms)`,
      ),
  })
  console.log(
    values.json ? formatJson(report) : values.markdown ? formatMarkdown(report) : formatTable(report),
  )
  if (values.keep) console.error(`workspace kept: ${report.root}`)
  return passed(report) ? 0 : 1
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`e2e:live: ${error instanceof Error ? error.message : String(error)}`)
  return 2
})
