import { integerFlag, parseCommandArgs, stringFlag } from "./args.ts"
import { CliError, ExitCode, usageError } from "./cli-error.ts"
import type { CliIo } from "./io.ts"
import { describeEndpointError } from "./probe/endpoint-error.ts"
import { renderProbeText, summarizeProbe } from "./probe/probe-render.ts"
import { type ProbeConfig, type ProbeProgress, runProbeMeasurement } from "./probe/run-probe.ts"
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
    },
    0,
  )
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
  if (values.json === true) {
    const { apiKey: _secret, ...shown } = config
    io.stdout.write(`${JSON.stringify({ config: shown, summary, runs: result }, null, 2)}\n`)
  } else {
    io.stdout.write(renderProbeText(config, summary, createStyle(io.stdout, io.env)))
  }
  return ExitCode.ok
}
