/**
 * The generated parts of `docs/troubleshooting.md`, written from the doctor's table
 * (`server-fixes.ts`) so the page and `probe` never disagree. `test/troubleshooting-doc.test.ts`
 * compares them with the page (and rewrites them with `TOOL_RESCUE_UPDATE_DOCS=1`).
 */
import { formats } from "@tool-rescue/detector"
import { type FormatParser, SERVER_IDS, SERVERS, TOOL_PARSERS } from "./server-fixes.ts"

/** The format the per-server sections use as their example: the raw XML users see most. */
const EXAMPLE_FORMAT = "qwen3-coder"

const code = (text: string | undefined): string => (text === undefined ? "–" : `\`${text}\``)

/** A table cell: the parser, or one per model group with the models it serves. */
const cell = (parser: FormatParser | undefined): string =>
  typeof parser === "object"
    ? parser.map((entry) => `${code(entry.parser)} (${entry.models})`).join(", ")
    : code(parser)

/**
 * The parser table: each format, the models that write it, and vLLM's and SGLang's
 * `--tool-call-parser` for it.
 *
 * @example
 * ```ts
 * parserTable().split("\n")[0] // "| format | written by | vLLM `--tool-call-parser` | SGLang `--tool-call-parser` |"
 * ```
 */
export function parserTable(): string {
  const rows = formats.map((info) => {
    const parsers = TOOL_PARSERS[info.id]
    return `| \`${info.id}\` | ${info.models.replace(/\|/g, "\\|")} | ${cell(parsers.vllm)} | ${cell(parsers.sglang)} |`
  })
  return [
    "| format | written by | vLLM `--tool-call-parser` | SGLang `--tool-call-parser` |",
    "| --- | --- | --- | --- |",
    ...rows,
  ].join("\n")
}

/**
 * One section per server: what to check, with the steps `probe` prints for a Qwen3-Coder leak.
 *
 * @example
 * ```ts
 * serverSections().startsWith("### vLLM") // true
 * ```
 */
export function serverSections(): string {
  return SERVER_IDS.map((id) => {
    const server = SERVERS[id]
    const fix = server.fix(EXAMPLE_FORMAT)
    return [
      `### ${server.name}`,
      "",
      `Check ${fix.check}. For a model that writes the \`${EXAMPLE_FORMAT}\` format:`,
      "",
      ...fix.steps.map((step) => `- ${step}`),
    ].join("\n")
  }).join("\n\n")
}
