import { CliError, ExitCode, isCliError } from "./cli-error.ts"
import { type CommandName, commandHelp, overviewHelp } from "./help.ts"
import type { CliIo } from "./io.ts"
import { oneLine } from "./text.ts"
import { cliVersion } from "./version.ts"

const COMMANDS: readonly CommandName[] = ["demo", "scan", "probe", "serve", "report"]

/** Runs one command with its arguments (everything after the command name). */
type CommandRunner = (argv: readonly string[], io: CliIo) => Promise<number>

// Loaded on demand: `--help` and `scan` need not load `ai`, `openai` or `effect`.
const runners: Readonly<Record<CommandName, () => Promise<CommandRunner>>> = {
  demo: async () => (await import("./demo-command.ts")).runDemo,
  scan: async () => (await import("./scan-command.ts")).runScan,
  probe: async () => (await import("./probe-command.ts")).runProbe,
  serve: async () => (await import("./serve-command.ts")).runServe,
  report: async () => (await import("./report-command.ts")).runReport,
}

/**
 * Runs `tool-rescue` with `argv` (the arguments after the program name) and returns the exit
 * code. Output goes to `io`; nothing here touches `process`, so tests call it in-process.
 *
 * @example
 * ```ts
 * import { main, processIo } from "@tool-rescue/cli"
 *
 * process.exitCode = await main(process.argv.slice(2), processIo())
 * ```
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv
  if (first === undefined || first === "-h" || first === "--help") {
    io.stdout.write(overviewHelp)
    return ExitCode.ok
  }
  if (first === "-v" || first === "--version") {
    io.stdout.write(`${cliVersion()}\n`)
    return ExitCode.ok
  }
  if (first === "help") {
    const topic = rest[0]
    if (topic === undefined) io.stdout.write(overviewHelp)
    else if (isCommand(topic)) io.stdout.write(commandHelp(topic))
    else
      return fail(
        io,
        "tool-rescue",
        new CliError(`no help for '${topic}' (commands: ${COMMANDS.join(", ")})`),
      )
    return ExitCode.ok
  }
  if (!isCommand(first)) {
    const what = first.startsWith("-") ? `unknown option ${first}` : `unknown command '${first}'`
    return fail(
      io,
      "tool-rescue",
      new CliError(`${what} (commands: ${COMMANDS.join(", ")}; see tool-rescue --help)`),
    )
  }
  if (rest.includes("-h") || rest.includes("--help")) {
    io.stdout.write(commandHelp(first))
    return ExitCode.ok
  }
  try {
    const run = await runners[first]()
    return await run(rest, io)
  } catch (error) {
    return fail(io, `tool-rescue ${first}`, error)
  }
}

function isCommand(value: string): value is CommandName {
  return (COMMANDS as readonly string[]).includes(value)
}

/** Prints the one-line error and returns its exit code. */
function fail(io: CliIo, prefix: string, error: unknown): number {
  if (isCliError(error)) {
    const hint = error.usage ? ` (see ${prefix} --help)` : ""
    io.stderr.write(`${prefix}: ${oneLine(error.message, 400)}${hint}\n`)
    return error.exitCode
  }
  // A bug, not bad input: still one line, with the stack on request.
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  io.stderr.write(`${prefix}: internal error: ${oneLine(message, 400)}\n`)
  if (io.env.TOOL_RESCUE_DEBUG !== undefined && error instanceof Error && error.stack !== undefined) {
    io.stderr.write(`${error.stack}\n`)
  }
  return ExitCode.error
}
