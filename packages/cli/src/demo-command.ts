import { scan } from "@tool-rescue/detector"
import { defaultInstruction, type RecoveryEvent } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { startReplayServer } from "@tool-rescue/testing/replay"
import { choiceFlag, parseCommandArgs } from "./args.ts"
import { ExitCode } from "./cli-error.ts"
import { createDemoTrace, type DemoTrace } from "./demo/demo-trace.ts"
import {
  type AdapterId,
  executeTool,
  type ToolRun,
  type TurnOutcome,
  type TurnRunner,
} from "./demo/demo-turn.ts"
import {
  createDemoWorkspace,
  type DemoWorkspace,
  demoScript,
  demoToolNames,
  type Scenario,
  type ScenarioId,
  scenarios,
} from "./demo/demo-world.ts"
import type { CliIo } from "./io.ts"
import { createStyle, type Style } from "./style.ts"
import { formatTable } from "./table.ts"
import { excerpt, formatMs, plural } from "./text.ts"
import { wrapText } from "./wrap-text.ts"

interface Adapter {
  readonly id: AdapterId
  readonly title: string
  readonly load: () => Promise<TurnRunner>
}

// Each adapter's stack is loaded when its turn comes, so a missing one fails on its own line.
const adapters: readonly Adapter[] = [
  {
    id: "openai",
    title: "openai · withToolCallRecovery(new OpenAI({ baseURL }))",
    load: async () => (await import("./demo/run-openai.ts")).runOpenAiTurn,
  },
  {
    id: "ai-sdk",
    title: "AI SDK · wrapLanguageModel({ model, middleware: toolCallRecoveryMiddleware() }) + streamText",
    load: async () => (await import("./demo/run-ai-sdk.ts")).runAiSdkTurn,
  },
  {
    id: "effect",
    title: "Effect · ToolCallRecovery.layer() over LanguageModel + streamText with a Toolkit",
    load: async () => (await import("./demo/run-effect.ts")).runEffectTurn,
  },
  {
    id: "langchain",
    title:
      "LangChain · createAgent({ model: new ChatOpenAI(…), middleware: [toolCallRecoveryMiddleware()] })",
    load: async () => (await import("./demo/run-langchain.ts")).runLangChainTurn,
  },
  {
    id: "proxy",
    title: "proxy · plain fetch + SSE, no SDK, through tool-rescue serve",
    load: async () => (await import("./demo/run-proxy.ts")).runProxyTurn,
  },
]

/** One check of a turn: what should have happened, and whether it did. */
interface Check {
  readonly name: string
  readonly ok: boolean
  /** Shown in the summary table. */
  readonly cell: string
}

/** What the demo observed in one turn. */
interface TurnReport {
  readonly adapter: AdapterId
  readonly scenario: ScenarioId
  readonly checks: readonly Check[]
  readonly ms: number
}

/** Markup signatures that must never reach the screen. */
const MARKERS = ["<function=", "<parameter=", "</function>", "<tool_call>", "</tool_call>", '"arguments"']

/**
 * `tool-rescue demo`: see `tool-rescue demo --help`. Returns 0 when every step behaved as
 * shown, 1 when one did not.
 *
 * @example
 * ```ts
 * import { processIo, runDemo } from "@tool-rescue/cli"
 *
 * process.exitCode = await runDemo([], processIo())
 * ```
 */
export async function runDemo(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs(argv, { only: { type: "string" }, keep: { type: "boolean" } }, 0)
  const only =
    values.only === undefined
      ? undefined
      : choiceFlag(values, "only", ["openai", "ai-sdk", "effect", "langchain", "proxy"], "openai")
  const style = createStyle(io.stdout, io.env)
  const width = io.stdout.columns ?? 80
  const trace = createDemoTrace(io.stdout, style)
  const started = performance.now()

  // On a terminal the model streams at a pace you can watch (a hundred deltas a second); into a
  // pipe or a log it streams as fast as the client reads.
  const pace = io.stdout.isTTY === true ? 10 : 1
  const workspace = await createDemoWorkspace()
  let onRequest: ((index: number, rawBody: string) => void) | undefined
  const server = await startReplayServer({
    script: (request) => {
      onRequest?.(request.index, request.rawBody)
      return demoScript(request, pace)
    },
  })
  const reports: TurnReport[] = []
  try {
    io.stdout.write(`${style.bold("tool-rescue demo")} — a tool call written as text, caught and recovered\n`)
    io.stdout.write(
      `${style.dim(wrapText(`replay server ${server.url} (no network) · scratch workspace ${workspace.root}`, width, ""))}\n`,
    )
    for (const adapter of adapters) {
      if (only !== undefined && adapter.id !== only) continue
      trace.heading(`━━ ${adapter.title}`)
      const runner = await adapter.load()
      for (const [index, scenario] of scenarios.entries()) {
        trace.scenario(`scenario ${index + 1} · ${scenario.title}`)
        const report = await playTurn({
          adapter: adapter.id,
          runner,
          scenario,
          trace,
          workspace,
          server,
          style,
          setOnRequest: (f) => (onRequest = f),
        })
        reports.push(report)
      }
    }
  } finally {
    onRequest = undefined
    await server.close()
    if (values.keep !== true) await workspace.remove()
  }

  const elapsed = performance.now() - started
  io.stdout.write(`\n${style.bold("summary")}\n`)
  io.stdout.write(summaryTable(reports, style, width))
  const failed = reports.flatMap((report) =>
    report.checks
      .filter((check) => !check.ok)
      .map((check) => `${report.adapter} / ${report.scenario}: ${check.name}`),
  )
  io.stdout.write("\n")
  if (values.keep === true) io.stdout.write(style.dim(`failed responses kept in ${workspace.failedLog}\n`))
  if (failed.length > 0) {
    io.stdout.write(`${style.red("✗")} ${plural(failed.length, "step")} did not behave as shown:\n`)
    for (const line of failed) io.stdout.write(`  ${wrapText(line, width, "    ")}\n`)
    return ExitCode.findings
  }
  io.stdout.write(
    `${style.green("✓")} ${plural(reports.length, "turn")} through ${plural(reports.length / scenarios.length, "adapter")} behaved as shown · ${formatMs(elapsed)}\n`,
  )
  return ExitCode.ok
}

interface PlayOptions {
  readonly adapter: AdapterId
  readonly runner: TurnRunner
  readonly scenario: Scenario
  readonly trace: DemoTrace
  readonly workspace: DemoWorkspace
  readonly server: { readonly url: string; readonly requests: readonly { readonly index: number }[] }
  readonly style: Style
  readonly setOnRequest: (hook: ((index: number, rawBody: string) => void) | undefined) => void
}

async function playTurn(options: PlayOptions): Promise<TurnReport> {
  const { adapter, scenario, trace, workspace, server, style } = options
  const firstRequest = server.requests.length
  const events: RecoveryEvent[] = []
  const outcome: TurnOutcome = { tools: [], answer: "", error: undefined }
  let expectedInstruction: string | undefined
  let retryCarried: boolean | undefined
  let persisted = 0

  options.setOnRequest((index, rawBody) => {
    // The request after a recovery decision is the retry: does it carry the instruction?
    if (expectedInstruction === undefined || retryCarried !== undefined) return
    // Its first sentence and its closing mark: a streamed turn's instruction also quotes, between
    // them, the prose the first attempt showed.
    const firstSentence = expectedInstruction.slice(0, expectedInstruction.indexOf(". ") + 1)
    retryCarried = isRetryRequest(rawBody) && rawBody.includes(JSON.stringify(firstSentence).slice(1, -1))
    trace.step(
      "retry",
      retryCarried
        ? `request ${index - firstRequest + 1} re-sends the request without the malformed response, with the instruction: ${style.dim(`"${excerpt(expectedInstruction, 64)}"`)}`
        : style.red(`request ${index - firstRequest + 1} does not carry the host instruction`),
    )
  })
  const onEvent = (event: RecoveryEvent): void => {
    events.push(event)
    switch (event.type) {
      case "markup-detected": {
        const m = event.markup
        const envelope = `opening envelope ${m.opening ? "present" : "missing"}, closing ${m.closing ? "present" : "missing"}`
        trace.step(
          "detector",
          `${m.format} markup: a ${m.toolName ?? "unnamed"} call written as text (${envelope})` +
            (event.recoverable ? "" : ` · not recoverable: ${event.reason}`),
        )
        trace.step(
          "",
          `${style.dim(`held back, ${event.text.length} chars:`)} ${style.dim(excerpt(event.text, 60))}`,
        )
        return
      }
      case "recovery-started":
        expectedInstruction = defaultInstruction({
          round: event.round,
          markup: event.markup,
          tools: demoToolNames,
        })
        trace.step("recovery", `no structured call in the response: retry ${event.round} of 1`)
        return
      case "recovery-succeeded":
        trace.step("recovery", `retry ${event.round} answered without markup`)
        return
      case "recovery-failed":
        return
      case "unknown-tool-call":
        trace.step("detector", `structured call to a tool that was not offered: ${event.toolName}`)
        return
      case "recovery-skipped":
        trace.step("recovery", `skipped: ${event.reason}`)
        return
      default:
        event satisfies never
    }
  }
  const persist = workspace.persistFailed(adapter, scenario.id)
  const context = {
    baseURL: server.url,
    scenario,
    trace,
    workspace,
    onEvent,
    persistFailed: async (failed: Parameters<typeof persist>[0]) => {
      await persist(failed)
      persisted++
      trace.step(
        "persist",
        `failed response saved with status "failed" → .agent/failed-responses.jsonl (${failed.round === 0 ? "the first response" : `retry ${failed.round}'s response`}, ${failed.text.length} chars)`,
      )
    },
    runTool: async (name: string, input: unknown): Promise<ToolRun> => {
      trace.step("tool-call", `${name} ${JSON.stringify(input)} ${style.dim("(structured call)")}`)
      const run = await executeTool(workspace, name, input)
      const lines = run.output.split("\n").filter((line) => line.length > 0).length
      trace.step(
        "tool",
        run.ok
          ? `${name} ran: ${plural(lines, "line")} of ${String((input as { path?: unknown }).path)} from disk`
          : style.red(`${name} failed: ${run.output}`),
      )
      outcome.tools.push(run)
      return run
    },
  }

  trace.resetScreen()
  trace.step("user", scenario.prompt)
  const turnStarted = performance.now()
  await options.runner(context, outcome)
  const ms = performance.now() - turnStarted
  options.setOnRequest(undefined)
  if (outcome.error !== undefined) {
    trace.step(
      "error",
      `ToolCallRecoveryError code "${outcome.error.code}": ${excerpt(outcome.error.message, 90)}`,
    )
  }
  const requests = server.requests.length - firstRequest

  const screen = trace.screen()
  const onScreen = MARKERS.filter((marker) => screen.includes(marker))
  const screenMarkup = scan(screen, { tools: demoToolNames }).markup
  const detected = events.flatMap((event) =>
    event.type === "markup-detected" && event.recoverable ? [event.markup] : [],
  )
  const records = (await workspace.failedRecords()).filter(
    (r) => r.adapter === adapter && r.scenario === scenario.id,
  )
  const yes = style.green("✓")
  const no = style.red("✗")
  const mark = (ok: boolean) => (ok ? yes : no)
  const checks: Check[] = []
  const add = (name: string, ok: boolean, cell: string = mark(ok)) => checks.push({ name, ok, cell })

  const expectedLeaks = scenario.id === "recovered" ? 1 : 2
  add(
    `the detector flags ${expectedLeaks} recoverable leak${expectedLeaks === 1 ? "" : "s"} (got ${detected.length})`,
    detected.length === expectedLeaks &&
      detected[0]?.format === "qwen3-coder" &&
      detected[0]?.opening === false,
  )
  add(
    `no markup reaches the screen${onScreen.length > 0 ? ` (saw ${onScreen.join(" ")})` : ""}`,
    onScreen.length === 0 && screenMarkup.length === 0,
  )
  // Each malformed response once: the retried one, and in the second scenario the one that
  // ended the turn.
  add(
    `each malformed response is persisted once (got ${persisted} calls, ${records.length} records)`,
    persisted === expectedLeaks &&
      records.length === expectedLeaks &&
      records.every((record) => record.status === "failed" && record.text.includes("<")),
  )
  add("the retry carries the host instruction", retryCarried === true)
  if (scenario.id === "recovered") {
    const read = outcome.tools.find((run) => run.name === "read_file" && run.ok)
    add("the structured call runs read_file", read?.output.includes("PORT ?? 8080") === true)
    add(
      `the final answer arrives (got "${excerpt(outcome.answer, 40)}")`,
      outcome.answer.includes("8080") && outcome.error === undefined,
      outcome.answer.includes("8080") ? `${yes} port 8080` : no,
    )
    add(`3 requests: leak, retry, answer (got ${requests})`, requests === 3, String(requests))
    if (checks.every((check) => check.ok))
      trace.step("ok", `the user saw prose and the answer, never the markup · ${formatMs(ms)}`)
  } else {
    add("no tool runs", outcome.tools.length === 0, outcome.tools.length === 0 ? style.dim("–") : no)
    const code = outcome.error?.code
    add(
      `the turn ends with the explicit error (got ${code ?? "none"})`,
      code === "repeated-markup",
      code === "repeated-markup" ? `${yes} repeated-markup` : no,
    )
    add(`2 requests: leak, leak again (got ${requests})`, requests === 2, String(requests))
    if (checks.every((check) => check.ok))
      trace.step("ok", `the turn ended with the explicit error, never silence · ${formatMs(ms)}`)
  }
  for (const check of checks) if (!check.ok) trace.step("fail", check.name)
  return { adapter, scenario: scenario.id, checks, ms }
}

function summaryTable(reports: readonly TurnReport[], style: Style, width: number): string {
  // The five step checks share one column (a glyph each, explained under the table), so the
  // table fits an 80-column terminal.
  const table = formatTable(
    [
      { header: "adapter" },
      { header: "scenario" },
      { header: "checks" },
      { header: "outcome" },
      { header: "requests", align: "right" },
      { header: "time", align: "right" },
    ],
    reports.map((report) => [
      report.adapter,
      report.scenario,
      report.checks
        .slice(0, 5)
        .map((check) => check.cell)
        .join(""),
      ...report.checks.slice(5, 7).map((check) => check.cell),
      formatMs(report.ms),
    ]),
    { header: style.bold },
  )
  const legend = "checks: flagged · off screen · persisted · instructed retry · tool ran"
  return `${table}  ${style.dim(wrapText(legend, width - 2, "  "))}\n`
}
