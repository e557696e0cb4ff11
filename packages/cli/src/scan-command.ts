import { choiceFlag, integerFlag, parseCommandArgs, stringFlag } from "./args.ts"
import { CliError, ExitCode, usageError } from "./cli-error.ts"
import type { CliIo } from "./io.ts"
import { describeFsError, openInput } from "./open-input.ts"
import { createProgressLine } from "./progress.ts"
import { readLines } from "./scan/line-reader.ts"
import { InputError, scanLines } from "./scan/scan-input.ts"
import { renderScanText, scanJson } from "./scan/scan-render.ts"
import { createScanSession } from "./scan/scan-session.ts"
import { createStyle } from "./style.ts"
import { formatBytes, plural } from "./text.ts"

/**
 * `tool-rescue scan <file | -> [options]`: see `tool-rescue scan --help`. Returns the exit code:
 * 1 when recoverable leaks were found, 0 when none, 2 for bad arguments or unreadable input.
 *
 * @example
 * ```ts
 * import { processIo, runScan } from "@tool-rescue/cli"
 *
 * process.exitCode = await runScan(["recorded.jsonl", "--tools", "read_file,bash"], processIo())
 * ```
 */
export async function runScan(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      tools: { type: "string" },
      format: { type: "string" },
      evidence: { type: "string" },
      reasoning: { type: "string" },
      excerpts: { type: "string" },
      json: { type: "boolean" },
    },
    1,
  )
  const input = positionals[0]
  if (input === undefined) throw usageError("needs a file to read (or - for standard input)")
  const tools = parseTools(stringFlag(values, "tools"))
  const format = choiceFlag(values, "format", ["auto", "jsonl", "json", "sse", "text"], "auto")
  const evidence = choiceFlag(values, "evidence", ["structure", "envelope"], "structure")
  const reasoning = choiceFlag(values, "reasoning", ["auto", "ignore", "recover"], "auto")
  const maxExcerpts = integerFlag(values, "excerpts", 10, { min: 0, max: 10_000 })
  const json = values.json === true

  const source = await openInput(input, io)
  const session = createScanSession({ tools, policy: { evidence, reasoning }, maxExcerpts })
  const progress = createProgressLine(io.stderr, true)
  const name = input === "-" ? "standard input" : input
  let result: Awaited<ReturnType<typeof scanLines>>
  try {
    result = await scanLines(readLines(source), session, {
      format,
      onProgress: (lines, bytes, report) =>
        progress.update(
          `scanning ${name} · ${plural(lines, "line")} · ${formatBytes(bytes)} · ` +
            `${plural(report.responses, "response")} · ${plural(report.recoverable, "leak")}`,
        ),
    })
  } catch (error) {
    progress.clear()
    if (error instanceof InputError) throw new CliError(`${name}: ${error.message}`)
    if (typeof (error as { code?: unknown }).code === "string") {
      throw new CliError(`cannot read ${name}: ${describeFsError(error)}`)
    }
    throw error
  }
  progress.clear()
  if (json) io.stdout.write(`${JSON.stringify(scanJson(name, result), null, 2)}\n`)
  else io.stdout.write(renderScanText(name, result, createStyle(io.stdout, io.env)))
  return result.report.recoverable > 0 ? ExitCode.findings : ExitCode.ok
}

function parseTools(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined
  const tools = raw
    .split(",")
    .map((tool) => tool.trim())
    .filter((tool) => tool.length > 0)
  if (tools.length === 0) throw usageError("--tools needs at least one tool name (comma-separated)")
  return tools
}
