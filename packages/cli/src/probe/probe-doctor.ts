/**
 * `probe`'s doctor: reads the probe's own results and says when the leaks point at the server
 * rather than the model — leaks on most turns, or every leak in one format — and what to fix there
 * (from the one table in `server-fixes.ts`).
 */
import type { FormatId } from "@tool-rescue/detector"
import type { ProbeResult } from "./run-probe.ts"
import { type DetectedServer, SERVER_IDS, SERVERS, type ServerFix, type ServerId } from "./server-fixes.ts"

/**
 * - `no-leaks`: nothing leaked without recovery;
 * - `occasional`: a leak now and then, in more than one format or only once: the model slipped,
 *   and recovery is the fix;
 * - `server`: leaks on most turns (`most-turns`), or at least two and all in one format
 *   (`one-format`): the server's tool parser or chat template likely does not match the model.
 */
export type Verdict = "no-leaks" | "occasional" | "server"

/**
 * What the doctor concluded.
 *
 * @example
 * ```ts
 * const diagnosis: Diagnosis = diagnose(result, { id: "vllm", source: "owned_by" })
 * if (diagnosis.verdict === "server") console.log(diagnosis.fixes[0]?.fix.check)
 * ```
 */
export interface Diagnosis {
  readonly verdict: Verdict
  /** Why `server`: leaks on most turns, or every leak in one format. */
  readonly reasons: readonly ("most-turns" | "one-format")[]
  readonly leaks: number
  readonly runs: number
  /** The format most leaks were in. */
  readonly format: FormatId | undefined
  readonly server: DetectedServer | undefined
  /** The fix for the detected server, or for each server when none was recognised (`server` only). */
  readonly fixes: readonly { readonly server: ServerId; readonly fix: ServerFix }[]
}

/**
 * Reads a probe's runs without recovery.
 *
 * @example
 * ```ts
 * diagnose(result, undefined).verdict // "no-leaks" | "occasional" | "server"
 * ```
 */
export function diagnose(result: ProbeResult, server: DetectedServer | undefined): Diagnosis {
  const runs = result.without.length
  const leaked = result.without.flatMap((run) =>
    run.outcome === "leak" && run.format !== undefined ? [run.format] : [],
  )
  const leaks = leaked.length
  const perFormat = new Map<FormatId, number>()
  for (const format of leaked) perFormat.set(format, (perFormat.get(format) ?? 0) + 1)
  const format = [...perFormat].sort((a, b) => b[1] - a[1])[0]?.[0]
  const reasons: ("most-turns" | "one-format")[] = []
  if (leaks * 2 > runs) reasons.push("most-turns")
  if (leaks >= 2 && perFormat.size === 1) reasons.push("one-format")
  const verdict: Verdict = leaks === 0 ? "no-leaks" : reasons.length > 0 ? "server" : "occasional"
  const fixes =
    verdict !== "server" || format === undefined
      ? []
      : (server === undefined ? SERVER_IDS : [server.id]).map((id) => ({
          server: id,
          fix: SERVERS[id].fix(format),
        }))
  return { verdict, reasons, leaks, runs, format, server, fixes }
}

const SOURCES: Readonly<Record<DetectedServer["source"], string>> = {
  flag: "--server",
  owned_by: "owned_by in /v1/models",
  header: "the server response header",
  port: "the default port (a guess: pass --server to be sure)",
}

/** Where backticks delimit code: kept for Markdown, dropped for the terminal. */
type Code = (text: string) => string

/**
 * The doctor's lines: a verdict and, for `server`, the fix. `code` marks commands and flags.
 *
 * @example
 * ```ts
 * diagnosisLines(diagnosis, (text) => text).join("\n")
 * ```
 */
export function diagnosisLines(diagnosis: Diagnosis, code: Code): string[] {
  const { leaks, runs, format } = diagnosis
  switch (diagnosis.verdict) {
    case "no-leaks":
      return ["No tool call leaked as text: the server parses this model's calls."]
    case "occasional":
      return [
        `${leaks} of ${runs} turns leaked, not in one format: the model slips now and then. ` +
          "tool-rescue recovers these; the server's settings look right.",
      ]
    case "server": {
      const why = diagnosis.reasons
        .map((reason) =>
          reason === "most-turns"
            ? `${leaks} of ${runs} turns leaked`
            : `every leak was in the ${format} format`,
        )
        .join(" and ")
      const lines = [
        `${why}: the server's tool parser or chat template likely does not match the model, so the server returns its tool calls as text.`,
      ]
      if (diagnosis.server === undefined) {
        lines.push(`Server not recognised (pass --server ${SERVER_IDS.join("|")}); what to check in each:`)
      } else {
        lines.push(`Server: ${SERVERS[diagnosis.server.id].name} (from ${SOURCES[diagnosis.server.source]}).`)
      }
      const render = (text: string) => text.replace(/`([^`]*)`/g, (_, inner: string) => code(inner))
      for (const { server, fix } of diagnosis.fixes) {
        lines.push(`${SERVERS[server].name}: check ${render(fix.check)}`)
        for (const step of fix.steps) lines.push(`  - ${render(step)}`)
      }
      return lines
    }
    default:
      return diagnosis.verdict satisfies never
  }
}
