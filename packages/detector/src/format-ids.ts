/**
 * The one list of format ids. Everything keyed by format — the detector's rows (`format-table.ts`),
 * the format information (`format-info.ts`), `@tool-rescue/testing`'s leak renderers — is a
 * `Record<FormatId, …>`, so an id added here and missing there (or left there after it goes from
 * here) is a type error, and `FORMATS.md` is checked against this list by a test. Adding a format
 * starts here: see `FORMATS.md`, "Adding a format".
 */

/**
 * Every format id the detector reports, in catalogue order (the order of `formats` and of `FORMATS.md`).
 *
 * @example
 * ```ts
 * import { FORMAT_IDS, type FormatId } from "@tool-rescue/detector"
 *
 * const isFormatId = (s: string): s is FormatId => (FORMAT_IDS as readonly string[]).includes(s)
 * isFormatId("hermes") // true
 * ```
 */
export const FORMAT_IDS = [
  "qwen3-coder",
  "hermes",
  "mistral",
  "llama3-json",
  "pythonic",
  "deepseek-v3",
  "deepseek-dsml",
  "kimi-k2",
  "glm",
  "harmony",
  "minimax-m2",
  "minimax-m3",
  "minimax-m1",
  "granite",
  "function-gemma",
  "gemma4",
  "anthropic-xml",
  "command-r",
  "command-r7b",
  "xlam",
  "seed-oss",
  "functionary",
  "step3",
  "internlm",
  "jamba",
  "phi4-functools",
  "hunyuan",
  "lfm2",
  "olmo3",
  "nemotron",
  "apertus",
  "apriel",
  "longcat",
  "gigachat3",
  "kimi-k3",
  "plamo3",
  "inkling",
  "minicpm5",
  "solar-open2",
  "k2-horizon",
  "lmstudio",
  "dots",
  "cwm",
  "rwkv",
  "cline-xml",
] as const

/**
 * A format id (see `FORMATS.md`): the `format` value reported on each `Markup`.
 * @example
 * ```ts
 * const only: FormatId[] = ["qwen3-coder", "hermes"]
 * createDetector({ tools: ["read_file"], formats: only })
 * ```
 */
export type FormatId = (typeof FORMAT_IDS)[number]
