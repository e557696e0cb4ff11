/**
 * `leakedCall()`: tool calls written as text, in every format of FORMATS.md, with the variants
 * real models produce, each value labelled with what a correct detector must report.
 */
import type { FormatId } from "@tool-rescue/detector"
import fc from "fast-check"
import type { CallLabel, LeakLabels, LeakVariant, Sample } from "./labels.ts"
import { labelsOf } from "./labels.ts"
import {
  type ArgValue,
  type CallSpec,
  type FormatSpec,
  formatSpecs,
  type Rendered,
  type Segment,
} from "./leak-formats.ts"

/**
 * Every format id of FORMATS.md, in catalogue order (`cline-xml` included).
 *
 * @example
 * ```ts
 * import { allFormats, leakedCall } from "@tool-rescue/testing"
 *
 * const everything = leakedCall({ tools: ["read_file"], format: allFormats })
 * ```
 */
export const allFormats: readonly FormatId[] = [...formatSpecs.keys()]

/**
 * The formats a detector covers by default: all but `cline-xml` (a client protocol, opt-in).
 *
 * @example
 * ```ts
 * import { defaultFormats } from "@tool-rescue/testing"
 *
 * defaultFormats.includes("qwen3-coder") // true
 * defaultFormats.includes("cline-xml") // false
 * ```
 */
export const defaultFormats: readonly FormatId[] = allFormats.filter((id) => id !== "cline-xml")

/** The formats an arbitrary's `format` option asks for: one, several, or {@link defaultFormats}. */
export function requestedFormats(format: FormatId | readonly FormatId[] | undefined): readonly FormatId[] {
  return format === undefined ? defaultFormats : typeof format === "string" ? [format] : format
}

/**
 * Every leak variant, canonical first.
 *
 * @example
 * ```ts
 * import { leakedCall, leakVariants } from "@tool-rescue/testing"
 *
 * const cutOff = leakedCall({ tools: ["bash"], variants: leakVariants.filter((v) => v !== "complete") })
 * ```
 */
export const leakVariants: readonly LeakVariant[] = [
  "complete",
  "missing-opening",
  "missing-closing",
  "bare",
  "truncated",
  "repeated-closing",
]

/**
 * Options of {@link leakedCall}.
 *
 * @example
 * ```ts
 * import { leakedCall } from "@tool-rescue/testing"
 *
 * const qwenCutOff = leakedCall({ tools: ["read_file"], format: "qwen3-coder", variants: ["truncated"], maxCalls: 1 })
 * ```
 */
export interface LeakedCallOptions {
  /** The tools offered this turn; calls name these. Names unusable in a format are skipped for it. */
  readonly tools: readonly string[]
  /** The format(s) to write. @defaultValue every format but `cline-xml` */
  readonly format?: FormatId | readonly FormatId[]
  /** The variants to draw from (a variant a format cannot express falls back to `complete`). @defaultValue all */
  readonly variants?: readonly LeakVariant[]
  /** At most this many calls in one value. @defaultValue 3 */
  readonly maxCalls?: number
  /**
   * Also name tools that are not offered (hallucinated names, a tool removed since the last turn):
   * such calls are reported but not recoverable. Only calls that carry an envelope token get such
   * names — complete, or without the opening marker but ended by the closing one — since a
   * detector leaves a bare header or a start-anchored call to an unknown tool as text. @defaultValue false
   */
  readonly unknownTools?: boolean
  /**
   * Only values that end with the envelope closed, so more text may follow (`labels.closed`):
   * start-anchored formats and formats without a closing marker are left out. @defaultValue false
   */
  readonly closedOnly?: boolean
  /** Start-anchored formats (bare JSON, pythonic lists): include, exclude, or draw only those. @defaultValue "include" */
  readonly anchored?: "exclude" | "only" | "include"
}

const anyName = /^[A-Za-z_][\w.-]*$/
const identifier = /^[A-Za-z_]\w*$/

/** Parameter names as real tools spell them. */
const paramKeys = [
  "path",
  "command",
  "query",
  "city",
  "pattern",
  "file_path",
  "url",
  "limit",
  "recursive",
  "x",
]

/** Tool names models hallucinate (used only when not offered). */
const unknownNames = ["delete_everything", "rm_rf_all", "search_web", "run_shell", "fetch_url"]

/**
 * Characters of argument values: letters, digits, punctuation that matters to JSON and XML
 * escaping (quotes, backslash, ampersand), newlines, non-ASCII and an astral character. No `<`,
 * `>` or backtick: a value holding markup-like text is a different test (prose does that).
 */
const valueChars = [..."abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 ./_-:,()=+*#'\"\\&\né北😀"]

/**
 * A string argument value as the leaks use them: letters, digits, quotes, backslashes,
 * ampersands, newlines, non-ASCII and emoji (astral characters stay whole), but no `<`, `>` or
 * backtick.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { argString } from "@tool-rescue/testing"
 *
 * const path = argString(1) // at least one character
 * fc.sample(path, 3)
 * ```
 */
export function argString(minLength = 0): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...valueChars), minLength, maxLength: 24 })
}

function argValue(): fc.Arbitrary<ArgValue> {
  return fc.oneof(
    { weight: 4, arbitrary: argString() },
    { weight: 1, arbitrary: fc.integer({ min: -1000, max: 100000 }) },
    { weight: 1, arbitrary: fc.boolean() },
  )
}

interface CallDraft {
  readonly nameIndex: number
  readonly unknown: boolean
  readonly args: ReadonlyArray<readonly [string, ArgValue]>
}

function callDraft(unknownTools: boolean): fc.Arbitrary<CallDraft> {
  return fc.record({
    nameIndex: fc.nat(),
    unknown: unknownTools ? fc.boolean() : fc.constant(false),
    args: fc.uniqueArray(fc.tuple(fc.constantFrom(...paramKeys), argValue()), {
      selector: ([key]) => key,
      maxLength: 3,
    }),
  })
}

/** Whether `variant` is expressible in `spec` with `style`. */
function supports(spec: FormatSpec, style: number, variant: LeakVariant): boolean {
  switch (variant) {
    case "complete":
    case "truncated":
      return true
    case "missing-opening":
      return spec.innerHeader(style) && !spec.startAnchored
    case "missing-closing":
      return spec.hasClosing(style) && !spec.startAnchored
    case "bare":
      return spec.innerHeader(style) && spec.hasClosing(style) && !spec.startAnchored
    case "repeated-closing":
      // A tag or token closer (a bare `]` or a closing fence is ordinary text when repeated).
      return (
        spec.hasClosing(style) &&
        !spec.startAnchored &&
        spec.bracketClosing?.(style) !== true &&
        lastClose(spec.render([{ name: "f", args: [] }], style))
          ?.trimStart()
          .startsWith("<") === true
      )
    default:
      return variant satisfies never
  }
}

/** The text of the last closing marker of a rendered group (its shared tail, or the last call's own). */
function lastClose(rendered: Rendered): string | undefined {
  const segments = rendered.tail.length > 0 ? rendered.tail : (rendered.calls.at(-1) ?? [])
  return segments.findLast((segment) => segment.role === "close")?.text
}

/** The variants `format` can express in at least one of its marker styles (internal; for tests). */
export function variantsOf(format: FormatId): LeakVariant[] {
  const spec = formatSpecs.get(format)
  if (spec === undefined) return []
  return leakVariants.filter((variant) =>
    Array.from({ length: spec.styles }, (_, style) => style).some((style) => supports(spec, style, variant)),
  )
}

/** The text and labels of one leak, from drawn parts. Exported for `response()` and tests. */
export function buildLeak(
  spec: FormatSpec,
  style: number,
  variant: LeakVariant,
  calls: readonly CallSpec[],
  offered: readonly boolean[],
  cut: number,
): Sample<LeakLabels> {
  const rendered = spec.render(calls, style)
  const shared = rendered.head.length > 0 || rendered.tail.length > 0
  const dropOpen = variant === "missing-opening" || variant === "bare"
  const dropClose = variant === "missing-closing" || variant === "bare" || variant === "truncated"
  const last = rendered.calls.length - 1
  const keep = (segment: Segment, isLastCall: boolean): boolean => {
    if (segment.role === "open") return !dropOpen
    if (segment.role === "close") return !(dropClose && (shared || isLastCall))
    return true
  }
  const parts: string[] = []
  for (const segment of rendered.head) if (keep(segment, false)) parts.push(segment.text)
  rendered.calls.forEach((segments, i) => {
    if (i > 0) parts.push(rendered.separator)
    const kept = segments.filter((segment) => keep(segment, i === last))
    if (variant === "truncated" && i === last) {
      // Stop inside the last value segment (the truncation value appended by the caller).
      const valueAt = kept.findLastIndex((segment) => segment.role === "value")
      const target = kept[valueAt]!
      let at = 1 + (cut % Math.max(1, target.text.length - 1))
      // A model stops between tokens, never inside a surrogate pair.
      const code = target.text.charCodeAt(at - 1)
      if (code >= 0xd800 && code <= 0xdbff) at += at + 1 < target.text.length ? 1 : -1
      at = Math.max(1, at)
      for (const segment of kept.slice(0, valueAt)) parts.push(segment.text)
      parts.push(target.text.slice(0, at))
      return
    }
    for (const segment of kept) parts.push(segment.text)
  })
  if (variant !== "truncated")
    for (const segment of rendered.tail) if (keep(segment, true)) parts.push(segment.text)
  if (variant === "repeated-closing") {
    // The closer again, on its own line: models repeat it; it is never the user's text.
    const again = lastClose(rendered)
    if (again !== undefined) parts.push(`\n${again.trimStart()}`)
  }

  const hasClosing = spec.hasClosing(style)
  const bracket = spec.bracketClosing?.(style) === true
  const formatAliases = spec.aliases?.(style, dropOpen) ?? []
  // A start-anchored list or `;`-separated sequence is one group: only its end is certain.
  const grouped = shared || spec.startAnchored
  const labels: CallLabel[] = calls.map((call, i): CallLabel => {
    const isLast = i === last
    const groupAmbiguous = shared && calls.length > 1
    // A style may write no opening marker at all (LM Studio's `[NAME]` request): then none is seen.
    const opens = [...rendered.head, ...(rendered.calls[i] ?? [])].some((segment) => segment.role === "open")
    const opening = spec.startAnchored || groupAmbiguous ? undefined : !dropOpen && opens
    const closing =
      spec.startAnchored || (groupAmbiguous && hasClosing) || (bracket && !(dropClose && isLast))
        ? undefined
        : hasClosing && !(dropClose && isLast)
    let complete: boolean | undefined
    if (variant === "truncated") complete = isLast ? false : grouped ? undefined : true
    else if (variant === "bare" || spec.startAnchored) complete = undefined
    else if (variant === "missing-closing") complete = isLast ? false : grouped ? undefined : true
    else complete = true
    return {
      format: spec.id,
      formatAliases,
      toolName: call.name,
      offered: offered[i] ?? true,
      opening,
      closing,
      complete,
      inReasoning: false,
      answerFollows: false,
      recoverable: offered[i] ?? true,
    }
  })
  return {
    text: parts.join(""),
    labels: {
      ...labelsOf(labels),
      format: spec.id,
      variant,
      startAnchored: spec.startAnchored,
      closed:
        !spec.startAnchored &&
        hasClosing &&
        (variant === "complete" || variant === "missing-opening" || variant === "repeated-closing"),
    },
  }
}

/**
 * Tool calls written as text — the leak a model produces when it writes a tool call into its
 * answer instead of making a structured call — in every format of FORMATS.md, with the variants
 * seen in the wild: a missing opening envelope (Qwen3-Coder's `<tool_call>` dropped), a missing
 * closing envelope, neither envelope, truncation inside a parameter value, several calls, and
 * each format's marker spellings. Each value carries its labels: the format, the variant, the
 * calls a detector must report (tool name, envelope markers seen, complete or cut off) and the
 * offered tools recovery would act on. Shrinking goes towards one call, fewer arguments,
 * shorter values, the canonical marker style and the `complete` variant.
 *
 * A start-anchored format (bare JSON, pythonic lists) is evidence only at the start of a
 * response: use such a value as the whole text, or see `response()`, which places it right.
 *
 * @example
 * ```ts
 * import fc from "fast-check"
 * import { scan, isRecoverable } from "@tool-rescue/detector"
 * import { leakedCall } from "@tool-rescue/testing"
 *
 * const tools = ["read_file", "bash"]
 * fc.assert(
 *   fc.property(leakedCall({ tools }), ({ text, labels }) => {
 *     const { markup } = scan(text, { tools })
 *     const found = markup.filter((m) => isRecoverable(m)).map((m) => m.toolName)
 *     return JSON.stringify(found) === JSON.stringify(labels.tools)
 *   }),
 * )
 * ```
 */
export function leakedCall(options: LeakedCallOptions): fc.Arbitrary<Sample<LeakLabels>> {
  const requested = requestedFormats(options.format)
  const anchored = options.anchored ?? "include"
  const specs = requested
    .map((id) => {
      const spec = formatSpecs.get(id)
      if (spec === undefined) throw new TypeError(`leakedCall: unknown format ${JSON.stringify(id)}`)
      return spec
    })
    .filter((spec) =>
      anchored === "exclude" ? !spec.startAnchored : anchored === "only" ? spec.startAnchored : true,
    )
    // Closed leaks need a closing marker: style 0 has one whenever any style does.
    .filter((spec) => options.closedOnly !== true || (!spec.startAnchored && spec.hasClosing(0)))
    .map((spec) => ({
      spec,
      names: options.tools.filter((name) => (spec.identifierNames ? identifier : anyName).test(name)),
      unknown: unknownNames.filter((name) => !options.tools.includes(name)),
    }))
    .filter((entry) => entry.names.length > 0)
  if (specs.length === 0) {
    throw new TypeError("leakedCall: no requested format can name any of the given tools")
  }
  const variants = options.variants ?? leakVariants
  if (variants.length === 0) throw new TypeError("leakedCall: `variants` is empty")
  const maxCalls = Math.max(1, options.maxCalls ?? 3)
  return fc
    .record({
      entry: fc.constantFrom(...specs),
      style: fc.nat({ max: 11 }),
      variant: fc.constantFrom(...variants),
      drafts: fc.array(callDraft(options.unknownTools === true), { minLength: 1, maxLength: maxCalls }),
      truncation: argString(2),
      cut: fc.nat(),
    })
    .map(({ entry, style: drawnStyle, variant: wanted, drafts, truncation, cut }) => {
      const { spec, names, unknown } = entry
      const closedOnly = options.closedOnly === true
      const style = closedOnly && !spec.hasClosing(drawnStyle) ? 0 : drawnStyle
      let variant = supports(spec, style, wanted) ? wanted : "complete"
      if (closedOnly && variant !== "complete" && variant !== "missing-opening") variant = "complete"
      // A call to a tool that is not offered: complete, or without its opening marker but ended by
      // its envelope's closing token, which is withheld whatever tool the call names (ARCHITECTURE.md#policy).
      const enveloped = variant === "complete" || (variant === "missing-opening" && spec.hasClosing(style))
      const allowUnknown = enveloped && !spec.startAnchored && spec.nameGated !== true && unknown.length > 0
      const offered = drafts.map((draft) => !(allowUnknown && draft.unknown))
      const calls = drafts.map((draft, i): CallSpec => {
        const name = offered[i]
          ? names[draft.nameIndex % names.length]!
          : unknown[draft.nameIndex % unknown.length]!
        const isLast = i === drafts.length - 1
        // A truncated call ends inside a string value of at least two characters: append one.
        const args =
          variant === "truncated" && isLast
            ? [...draft.args.filter(([key]) => key !== "content"), ["content", truncation] as const]
            : draft.args
        return { name, args }
      })
      return buildLeak(spec, style, variant, calls, offered, cut)
    })
}
