import { type ParseArgsConfig, parseArgs } from "node:util"
import { usageError } from "./cli-error.ts"

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>

/** Parsed flags: each value a string, a boolean, the strings of a repeatable flag, or undefined when absent. */
export type ParsedValues = Record<string, string | boolean | readonly string[] | undefined>

/** Flags and positionals of one command line. */
export interface ParsedArgs {
  readonly values: ParsedValues
  readonly positionals: readonly string[]
}

/**
 * `node:util` `parseArgs` in strict mode, with its errors turned into one-line usage errors.
 *
 * @example
 * ```ts
 * const { values } = parseCommandArgs(["--runs", "3"], { runs: { type: "string" } }, 0)
 * ```
 */
export function parseCommandArgs(
  argv: readonly string[],
  options: OptionsConfig,
  maxPositionals: number,
): ParsedArgs {
  let parsed: { values: Record<string, unknown>; positionals: string[] }
  try {
    parsed = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: true,
      allowNegative: false,
    })
  } catch (error) {
    throw usageError(describeParseError(error))
  }
  if (parsed.positionals.length > maxPositionals) {
    const extra = parsed.positionals[maxPositionals]!
    throw usageError(`unexpected argument '${extra}'`)
  }
  const values: ParsedValues = {}
  for (const [key, value] of Object.entries(parsed.values)) {
    if (typeof value === "string" || typeof value === "boolean") values[key] = value
    else if (Array.isArray(value)) values[key] = value.filter((each) => typeof each === "string")
  }
  return { values, positionals: parsed.positionals }
}

function describeParseError(error: unknown): string {
  const code = (error as { code?: unknown }).code
  const message = error instanceof Error ? error.message : String(error)
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    // "Unknown option '--foo'. To specify a positional argument starting with a '-', …"
    const option = /'([^']*)'/.exec(message)?.[1]
    return `unknown option ${option ?? message}`
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    // "Option '--runs <value>' argument missing" / "Option '--json' does not take an argument"
    const option = /'(--?[\w-]+)/.exec(message)?.[1]
    if (message.includes("argument missing")) return `${option ?? "option"} needs a value`
    if (message.includes("does not take an argument")) return `${option ?? "option"} does not take a value`
    if (message.includes("ambiguous")) {
      return `${option ?? "option"} needs a value (write ${option ?? "--option"}=<value> for a value that starts with -)`
    }
  }
  return message.split("\n")[0] ?? message
}

/**
 * A string flag's value as an integer in `[min, max]`, or `fallback` when the flag is absent.
 *
 * @example
 * ```ts
 * integerFlag({ runs: "3" }, "runs", 10, { min: 1, max: 1000 }) // 3
 * ```
 */
export function integerFlag(
  values: ParsedValues,
  name: string,
  fallback: number,
  range: { readonly min: number; readonly max: number },
): number {
  const raw = values[name]
  if (raw === undefined) return fallback
  const text = String(raw).trim()
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw usageError(`--${name} must be an integer from ${range.min} to ${range.max}, got '${String(raw)}'`)
  }
  return value
}

/**
 * A string flag restricted to `choices`, or `fallback` when absent.
 *
 * @example
 * ```ts
 * choiceFlag({ evidence: "envelope" }, "evidence", ["structure", "envelope"] as const, "structure") // "envelope"
 * ```
 */
export function choiceFlag<const T extends string>(
  values: ParsedValues,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  const raw = values[name]
  if (raw === undefined) return fallback
  const found = choices.find((choice) => choice === raw)
  if (found === undefined)
    throw usageError(`--${name} must be one of ${choices.join(", ")}, got '${String(raw)}'`)
  return found
}

/**
 * A string flag's value, or undefined when absent.
 *
 * @example
 * ```ts
 * stringFlag({ model: "qwen3" }, "model") // "qwen3"
 * ```
 */
export function stringFlag(values: ParsedValues, name: string): string | undefined {
  const raw = values[name]
  return typeof raw === "string" ? raw : undefined
}

/**
 * The values of a repeatable string flag (`multiple: true`), in order; none when absent.
 *
 * @example
 * ```ts
 * listFlag({ "allowed-host": ["a.lan", "b.lan"] }, "allowed-host") // ["a.lan", "b.lan"]
 * ```
 */
export function listFlag(values: ParsedValues, name: string): readonly string[] {
  const raw = values[name]
  return typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : []
}
