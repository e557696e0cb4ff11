/**
 * The exit codes of the `tool-rescue` command (also in `--help` and the README):
 *
 * - `0`: success (`scan`: no recoverable leak; `demo`: every step behaved as shown);
 * - `1`: a finding (`scan`: recoverable leaks were found; `demo`: a step did not behave as shown);
 * - `2`: the command could not do its job: bad arguments, unreadable input, an endpoint that
 *   refuses, rejects, times out or does not speak the OpenAI API.
 *
 * @example
 * ```ts
 * import { ExitCode, main, processIo } from "@tool-rescue/cli"
 *
 * if ((await main(["scan", "recorded.jsonl"], processIo())) === ExitCode.findings) console.error("leaks found")
 * ```
 */
export const ExitCode: { readonly ok: 0; readonly findings: 1; readonly error: 2 } = {
  ok: 0,
  findings: 1,
  error: 2,
}

/**
 * One of {@link ExitCode}.
 *
 * @example
 * ```ts
 * import { ExitCode, type ExitCodeValue } from "@tool-rescue/cli"
 *
 * const code: ExitCodeValue = ExitCode.ok
 * ```
 */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

/**
 * An error the CLI reports as one line (`tool-rescue <command>: <message>`) before exiting with
 * `exitCode`. Recognised by shape ({@link isCliError}: its `name` and a numeric `exitCode`), not
 * `instanceof`, so a second copy of this package still recognises it.
 *
 * @example
 * ```ts
 * import { CliError, ExitCode } from "@tool-rescue/cli"
 *
 * throw new CliError("--runs must be a positive integer", ExitCode.error)
 * ```
 */
export class CliError extends Error {
  override readonly name: "CliError" = "CliError"
  readonly exitCode: ExitCodeValue
  /** Add "(see tool-rescue <command> --help)" to the line. */
  readonly usage: boolean

  constructor(
    message: string,
    exitCode: ExitCodeValue = ExitCode.error,
    options: { usage?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.exitCode = exitCode
    this.usage = options.usage ?? false
  }
}

/**
 * True for a {@link CliError}, from any copy of this package.
 *
 * @example
 * ```ts
 * import { isCliError } from "@tool-rescue/cli"
 *
 * isCliError(new Error("x")) // false
 * ```
 */
export function isCliError(value: unknown): value is CliError {
  return (
    value instanceof Error &&
    value.name === "CliError" &&
    typeof (value as { exitCode?: unknown }).exitCode === "number" &&
    typeof (value as { usage?: unknown }).usage === "boolean"
  )
}

/** A usage error: bad arguments (exit 2, with a pointer to `--help`). */
export function usageError(message: string): CliError {
  return new CliError(message, ExitCode.error, { usage: true })
}
