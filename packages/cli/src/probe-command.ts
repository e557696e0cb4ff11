import { choiceFlag, integerFlag, parseCommandArgs, stringFlag } from "./args.ts"
import { CliError, ExitCode, usageError } from "./cli-error.ts"
import type { CliIo } from "./io.ts"
import { describeEndpointError } from "./probe/endpoint-error.ts"
import { modelOwners } from "./probe/model-owners.ts"
import { diagnose } from "./probe/probe-doctor.ts"
import { renderProbeMarkdown, renderProbeText, summarizeProbe } from "./probe/probe-render.ts"
import { type ProbeConfig, type ProbeProgress, runProbeMeasurement } from "./probe/run-probe.ts"
import { detectServer, SERVER_IDS } from "./probe/server-fixes.ts"
import { createProgressLine, progressBar } from "./progress.ts"
import { createStyle } from "./style.ts"

/**
 * `tool-rescue probe --base-url URL --model M [...]`: see `tool-rescue probe --help`. Returns
 * 0 when the probe ran, 2 (through a thrown `CliError`) for bad arguments or a failing endpoint.
 *
 * @example
 * ```ts
 * import { processIo, runProbe } from "@tool-rescue/cli"
 *
 * process.exitCode = await runProbe(["--base-url", "http://127.0.0.1:8000/v1", "--model", "qwen3-coder"], processIo())
 * ```
 */
export async function runProbe(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    {
      "base-url": { type: "string" },
      model: { type: "string" },
      "api-key": { type: "string" },
      runs: { type: "string" },
      stream: { type: "boolean" },
      timeout: { type: "string" },
      json: { type: "boolean" },
      markdown: { type: "boolean" },
      server: { type: "string" },
    },
    0,
  )
  if (values.json === true && values.markdown === true)
    throw usageError("--json and --markdown print different reports: choose one")
  const serverFlag = choiceFlag(values, "server", ["auto", ...SERVER_IDS], "auto")
  const baseURL = stringFlag(values, "base-url")
  if (baseURL === undefined) throw usageError("--base-url is required (e.g. http://127.0.0.1:8000/v1)")
  let url: URL
  try {
    url = new URL(baseURL)
  } catch {
    throw usageError(`--base-url is not a URL: '${baseURL}'`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw usageError(`--base-url must be http(s), got '${baseURL}'`)
  const model = stringFlag(values, "model")
  if (model === undefined || model.trim() === "") throw usageError("--model is required")
  const config: ProbeConfig = {
    baseURL: baseURL.replace(/\/+$/, ""),
    model,
    apiKey: stringFlag(values, "api-key") ?? io.env.OPENAI_API_KEY ?? "no-key",
    runs: integerFlag(values, "runs", 10, { min: 1, max: 1000 }),
    stream: values.stream === true,
    timeoutMs: integerFlag(values, "timeout", 60, { min: 1, max: 3600 }) * 1000,
  }

  const progress = createProgressLine(io.stderr, true)
  const onProgress = (p: ProbeProgress) =>
    progress.update(
      `probing ${p.mode === "without" ? "without recovery" : "with tool-rescue  "} ${progressBar(p.done, p.total)}  ` +
        `${p.mode === "without" ? "leaks" : "recoveries"} ${p.leaks}`,
      p.done === p.total,
    )
  let result: Awaited<ReturnType<typeof runProbeMeasurement>>
  try {
    result = await runProbeMeasurement(config, onProgress)
  } catch (error) {
    progress.clear()
    throw new CliError(
      describeEndpointError(error, config.baseURL, config.model, config.timeoutMs),
      ExitCode.error,
    )
  }
  progress.clear()
  const summary = summarizeProbe(result)
  const server = detectServer({
    flag: serverFlag === "auto" ? undefined : serverFlag,
    ownedBy:
      serverFlag === "auto" ? await modelOwners(config.baseURL, config.model, config.apiKey, 5_000) : [],
    headers: result.serverHeader === undefined ? {} : { server: result.serverHeader },
    baseURL: config.baseURL,
  })
  const diagnosis = diagnose(result, server)
  if (values.json === true) {
    const { apiKey: _secret, ...shown } = config
    io.stdout.write(`${JSON.stringify({ config: shown, summary, diagnosis, runs: result }, null, 2)}\n`)
  } else if (values.markdown === true) {
    io.stdout.write(renderProbeMarkdown(config, summary, diagnosis))
  } else {
    io.stdout.write(renderProbeText(config, summary, diagnosis, createStyle(io.stdout, io.env)))
  }
  return ExitCode.ok
}
