/**
 * Every tool-call format of FORMATS.md as data: the literals that open a call, the short grammar
 * that confirms it, and how its body is read, one entry per format id in {@link FORMAT_ROWS}. The
 * state machine in `create-detector.ts` knows no format by name.
 *
 * Order is priority: when several rows share an opening literal (`<tool_call>` opens
 * Qwen3-Coder, Hermes, GLM and Hunyuan calls), the first row whose confirm grammar matches wins.
 */

import type { FormatId } from "./format-ids.ts"
import {
  alt,
  cut,
  cutIn,
  end,
  lit,
  name,
  not,
  nsLit,
  opt,
  type Pattern,
  peek,
  pyArgs,
  seq,
  to,
  word,
  ws,
} from "./pattern.ts"

/** What a literal inside a call body means. */
export type BodyRole =
  /** The envelope's closing marker: the markup ends after it (`closing: true`). */
  | "closer"
  /** A call header: its pattern captures the tool name; a new call starts here. */
  | "call"
  /** A parameter tag: the current call is `structured`. */
  | "structure"
  /** A call's own close (`</function>`): the current call is `structured`. */
  | "call-end"

/** A literal watched for inside a call body. */
export interface BodyEntry {
  readonly literal: string
  readonly role: BodyRole
  /** For `call`: matched right after the literal, captures the tool name. For `closer`: an optional tail. */
  readonly pattern?: Pattern
}

/**
 * What may follow a bare call (one without its opening envelope): its envelope's closer, left
 * behind. `format`: the closer tells the format apart from another one writing the same call
 * (`<invoke name=…>` is Anthropic XML or MiniMax M2; `</minimax:tool_call>` says which).
 */
export interface BareTail {
  readonly literal: string
  readonly format?: FormatId
  /** Matched right after the literal: what else the orphan closer may bring (`</invoke>` then its envelope's closer). */
  readonly pattern?: Pattern
}

/** How the inside of a call is read. */
export type BodySpec =
  /** Literal markers (XML-ish and special-token formats). */
  | {
      readonly kind: "tags"
      readonly entries: readonly BodyEntry[]
      /** Bare calls (no envelope): the markup ends at a `call-end`, absorbing whitespace plus one of `tails`. */
      readonly bare?: { readonly tails: readonly BareTail[] }
      /** Its `<`-tags may carry any XML namespace prefix (`<x:parameter`, `</x:invoke>`). */
      readonly ns?: boolean
    }
  /** One or more JSON values; the markup ends at a closer or, without one, where the JSON ends. */
  | {
      readonly kind: "json"
      readonly closers: readonly string[]
      /** `keys`: `"name"`/`"tool_name"` of each call object; `first-key`: the key is the name; `none`: the name came with the header. */
      readonly names: "keys" | "first-key" | "none"
      /**
       * The closer may be missing by nature (an end-of-message token, or special tokens stripped): a
       * payload that ends the stream is complete. Otherwise the envelope is still open there
       * (`complete: false`).
       */
      readonly closerOptional?: boolean
      /**
       * The call objects sit one level down, under the `"tool_call"` or `"tool_calls"` key of an
       * outer object (llama.cpp's generic format: `{"tool_call": {"name": …}}`, `{"tool_calls": [{…}]}`).
       */
      readonly wrapped?: boolean
      /**
       * A bare JSON call (no envelope of its own): the orphan envelope closers that may follow it, left
       * behind by a model that dropped the opener (`{"name": …}</tool_call>`); one joins the call.
       */
      readonly bare?: { readonly tails: readonly BareTail[] }
      /** `python`: strings may be in single quotes too (a Python dict written for JSON: RWKV's legacy calls). */
      readonly quotes?: "python"
    }
  /** Python call syntax: `[f(a=1), g()]`, or one call per line (`lines`). */
  | {
      readonly kind: "pythonic"
      readonly closers: readonly string[]
      readonly lines: boolean
      /**
       * A bare call (no envelope, no list: Granite's `NAME(k=v)` line): the markup ends after the
       * `)` that closes it, unless `, NAME(` goes on to the next call; a `]` right after joins it.
       */
      readonly bare?: boolean
    }

/** Where an opening literal counts. */
export type Where =
  /** Anywhere in prose. */
  | "anywhere"
  /** Only at the start of the response or right after a reasoning block (FORMATS.md: start-anchored). */
  | "anchor"
  /** Only at the start of a line (after up to three spaces). */
  | "line"

/** A way a tool call can start, as a format's entry in {@link FORMAT_ROWS} writes it. */
export interface FormatRow {
  readonly literals: readonly string[]
  readonly where: Where
  /** Matched right after the literal; must succeed for the literal to be markup. May capture the first call's name. */
  readonly confirm: Pattern
  /** The literal is the format's opening envelope marker. */
  readonly opening: boolean
  /** The captured name must name an offered tool (when tools are given): bare openers that prose could contain. */
  readonly gate: boolean
  /**
   * For a gated row: what confirms its call when it names a tool that is not offered, read after
   * the confirm — the envelope token that ends it (`…</function>\n</tool_call>`). An envelope token
   * is withheld whatever tool it names (ARCHITECTURE.md#policy); the bare header alone is prose.
   */
  readonly unoffered: Pattern | undefined
  /**
   * Where the body starts, counted from the literal's start; `undefined`: after the confirm. 0 for
   * start-anchored JSON and pythonic (the literal is the value's first character); 9 for `functools[`.
   */
  readonly bodyAt: number | undefined
  /** The confirm already proves inner call structure (`NAME[ARGS]{`). */
  readonly structured: boolean
  /** A Harmony message addressed to a function: it ends any open Harmony analysis (it is a new message). */
  readonly endsAnalysis: boolean
  /** The next call may follow the payload directly, glued with no line break (Functionary v3.2's `}>>>NAME`). */
  readonly glued: boolean
  /**
   * The literal is the first letter of a bare tool name at the start of the response (Functionary
   * v3.2's first call, `NAME\n{…}`): the confirm reads from the literal's start, only an offered
   * tool counts (with none offered, never), and a word that no offered tool starts with is decided
   * at once, so the first word of an answer is not held.
   */
  readonly bareName: boolean
  /**
   * For a one-character literal found anywhere (`[`): the characters that may follow it for the
   * confirm to succeed. The prose scan then stops at the literal only before one of them, so a
   * flood of the character (`[[[[`) is skipped like plain text instead of matched at every one.
   * `undefined`: any character may follow.
   */
  readonly follows: string | undefined
  /** The tool the literal itself names (Cline's `<read_file>`). */
  readonly toolName: string | undefined
  /** Its `<`-literals may carry any XML namespace prefix (`<x:function_calls>`, `<x:invoke name=…>`). */
  readonly ns: boolean
  /**
   * A special token of the format's family that no call the table knows follows (ARCHITECTURE.md#policy,
   * "withhold only what is a call"): withheld on its own, never shown; the name its confirm captures is kept only when
   * it is an offered tool, and the call is never `structured`. Its role says what it leaves due: a
   * token that closes an envelope (a stray `<|tool_call_end|>`) is `closing`, and it and a frame
   * are `complete`; an opener's envelope is still open.
   */
  readonly token: TokenRole | undefined
  /**
   * A template: one row per offered tool, with {@link TOOL} in its literals and body literals
   * replaced by the tool's name (which it reports): Cline's `<read_file>` … `</read_file>`.
   */
  readonly perTool: boolean
  /** Off unless the `formats` option names the row's format (intentional content for some clients). */
  readonly optIn: boolean
  /**
   * Only the format's {@link Family} spelling of the row counts (`<arg_key:opensource>`): the plain
   * spelling is a tag prose writes, the family's a special token that only a leak holds.
   */
  readonly familyOnly: boolean
  /**
   * A gated row whose name is words prose writes too (`<tool_call> then </tool_call>`): it names an
   * offered tool whose name has a space in it, or is not markup (also when no tools are given).
   */
  readonly offeredOnly: boolean
  /**
   * The literal does not count glued to what ends an expression before it (a word character, `)`
   * or `]`): `items[search(k=1)]` indexes a sequence, while a list after prose follows a space or
   * punctuation (`Here's a tool call: [search(k=1)]`).
   */
  readonly detached: boolean
  readonly body: BodySpec
}

/** A row with the format it belongs to: what the compiler indexes and a markup reports. */
export interface OpenerRow extends FormatRow {
  readonly format: FormatId
}

/** A reasoning block's closing marker. `peek`: the marker is not consumed (it also starts what follows). */
export interface ReasoningClose {
  readonly literal: string
  readonly peek: boolean
  /** Matched right after the literal, part of the marker (the rest of a suffixed `</think:opensource>`). */
  readonly pattern?: Pattern
}

/** A reasoning block (`<think>…</think>` and its relatives). */
export interface ReasoningRow {
  /** The formats that enable the row; `undefined`: always on. */
  readonly formats: readonly FormatId[] | undefined
  readonly literals: readonly string[]
  readonly where: Where
  readonly confirm: Pattern
  readonly close: readonly ReasoningClose[]
  /** Harmony analysis: a message addressed `to=functions.NAME` ends it. */
  readonly harmony: boolean
  /**
   * Chat templates write the opener into the prompt, so the output holds only the closer
   * (`reasoning…</think>\n\nanswer`): a closer before any reasoning marker ends that block.
   */
  readonly openedInPrompt?: boolean
  /**
   * A closer that is a tag prose names (an `anchor` row's) ends the template's block where its line
   * ends, or where this follows it on the same line: the start of a call no prose writes
   * (`reasoning</think>[{"name": …}]`).
   */
  readonly answerOnLine?: Pattern
}

const EMPTY: Pattern = seq()
const opener = (
  literals: readonly string[],
  confirm: Pattern,
  body: BodySpec,
  extra: Partial<Omit<FormatRow, "literals" | "confirm" | "body">> = {},
): FormatRow => ({
  literals,
  confirm,
  body,
  where: extra.where ?? "anywhere",
  opening: extra.opening ?? true,
  gate: extra.gate ?? false,
  unoffered: extra.unoffered,
  bodyAt: extra.bodyAt,
  structured: extra.structured ?? false,
  endsAnalysis: extra.endsAnalysis ?? false,
  glued: extra.glued ?? false,
  bareName: extra.bareName ?? false,
  follows: extra.follows,
  toolName: extra.toolName,
  ns: extra.ns ?? false,
  token: extra.token,
  perTool: extra.perTool ?? false,
  optIn: extra.optIn ?? false,
  familyOnly: extra.familyOnly ?? false,
  offeredOnly: extra.offeredOnly ?? false,
  detached: extra.detached ?? false,
})
const closers = (...literals: string[]): BodyEntry[] =>
  literals.map((literal) => ({ literal, role: "closer" }))
const structure = (...literals: string[]): BodyEntry[] =>
  literals.map((literal) => ({ literal, role: "structure" }))
const callEnds = (...literals: string[]): BodyEntry[] =>
  literals.map((literal) => ({ literal, role: "call-end" }))
const call = (literal: string, pattern: Pattern): BodyEntry => ({ literal, role: "call", pattern })
type JsonBody = Extract<BodySpec, { kind: "json" }>
const json = (names: "keys" | "first-key" | "none", ...closerLiterals: string[]): JsonBody => ({
  kind: "json",
  closers: closerLiterals,
  names,
})
type TagsBody = Extract<BodySpec, { kind: "tags" }>
const tags = (...entries: BodyEntry[][]): TagsBody => ({ kind: "tags", entries: entries.flat() })
/** Tags that may carry any XML namespace prefix. */
const nsTags = (spec: TagsBody): TagsBody => ({ ...spec, ns: true })
/** Python calls: a list (`[f(a=1), g()]`) or one call a line. */
const pythonic = (layout: "list" | "lines", ...closerLiterals: string[]): BodySpec => ({
  kind: "pythonic",
  closers: closerLiterals,
  lines: layout === "lines",
})
/** A call written without its opening envelope: it ends at its own close, plus an orphan closer. */
const bareTags = (entries: BodyEntry[], tails: readonly (string | BareTail)[]): TagsBody => ({
  kind: "tags",
  entries,
  bare: { tails: tails.map((t) => (typeof t === "string" ? { literal: t } : t)) },
})

/** Stands for the offered tool's name in the literals of a `perTool` row. */
export const TOOL = "{tool}"

/**
 * A stray `<tool_call>` right before GLM's (or HY's) real one (`text <tool_call><tool_call>NAME…`,
 * vLLM `tests/parser/engine/test_glm47_stray_tool_call.py`): read over, part of the call.
 */
const AGAIN: Pattern = opt(seq(ws, lit("<tool_call>")))
/** `{` and a key's `quote`, or `[{` (after optional whitespace): a call payload begins. */
const payloadStart = (quote: Pattern): Pattern =>
  seq(ws, peek(alt(seq(lit("{"), ws, quote), seq(lit("["), ws, lit("{")))))
/** `{"…` or `[{`: a JSON call payload begins. */
const JSON_START: Pattern = payloadStart(lit('"'))
/** {@link JSON_START}, or a Python dict (`{'`). */
const HERMES_START: Pattern = payloadStart(alt(lit('"'), lit("'")))
/** `{"name"` or `[{"name"` (after optional whitespace, line breaks included): a call object begins. */
const JSON_CALL_START: Pattern = seq(ws, peek(seq(opt(seq(lit("["), ws)), lit("{"), ws, lit('"name"'))))
/**
 * Tags models wrap a Hermes call in instead of `<tool_call>` (llama.cpp `common_chat_parse_hermes_2_pro`
 * accepts each of them, tests/chat: `<tool>`, `<response>`, `<json>`, `<xml>`, `<JSON>`).
 */
const HERMES_WRAPPERS = ["tool", "response", "json", "xml", "JSON"] as const
/** What may follow a `[` that opens a pythonic call: `ws`, then the first character of an `ident` name. */
const PYTHONIC_FOLLOWS = " \t\n\v\f\rabcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."
/**
 * The name right after a `[` in prose (a pythonic list's first call, LM Studio's `[NAME]`): one
 * pattern for both rows, so that the run it reads while a long name streams in is read once
 * (the run memo is keyed by pattern), not once per row on every push.
 */
const BRACKETED_NAME: Pattern = name("ident")
/** `k=`: a Python keyword argument begins. */
const KWARG: Pattern = seq(word("ident"), ws, lit("="))
/** `[` or `{`: any JSON value begins. */
const JSON_ANY: Pattern = seq(ws, peek(alt(lit("["), lit("{"))))
const QUOTED_NAME: Pattern = seq(name("quoted"), lit('"'))
/** A name in single quotes (`name='NAME'`): an identifier, then its closing quote. */
const SINGLE_QUOTED_NAME: Pattern = seq(name("ident"), lit("'"))
/** Mistral v13's call id between a call's name and its `[ARGS]`, optional. */
const MISTRAL_CALL_ID: Pattern = opt(seq(lit("[CALL_ID]"), word("ident")))
/** `NAME[ARGS]{`: a Mistral v11+ call whose `[TOOL_CALLS]` was stripped. */
const MISTRAL_BARE_CALL: Pattern = seq(name("ident"), MISTRAL_CALL_ID, lit("[ARGS]"), ws, peek(lit("{")))
/** The characters a bare tool name starts with. */
const NAME_STARTS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"

// --- Granite 3.3 / 4.0 H-Small: a bare Python call a line, `get_weather(location="Paris")` ------
/** Spaces and tabs, if any (a bare call's line holds nothing else after it). */
const BLANKS: Pattern = opt(word("blank"))
/** After a bare call's `)`: the `,` before the next call. */
const PY_COMMA: Pattern = seq(BLANKS, lit(","), ws)
/** After a bare call's `)`: `,` and the next call, `a(x=1), b(` (the match ends at `b`). */
export const PY_NEXT: Pattern = seq(PY_COMMA, peek(seq(word("ident"), lit("("))))
/** {@link PY_NEXT} read through the next call's `(` (its name read once). */
const PY_NEXT_CALL: Pattern = seq(PY_COMMA, word("ident", 256), lit("("))
/** After a bare call's `)`: the `]` of the list it was in (joins the call). */
export const PY_LIST_END: Pattern = seq(BLANKS, lit("]"))
/**
 * What follows a bare call's `)` for it to be a call (vLLM `granite_pythonic`: the call is the whole
 * line): the line's end, the stream's, a `]` closing the list it was in, or `,` and the next call,
 * which must end so in turn. Prose after it (`list_files() is the function that…`, or after the
 * last of `a(), b()`) makes the line prose.
 */
const pyAfter = (calls: number): Pattern =>
  alt(
    seq(BLANKS, peek(alt(lit("\n"), lit("\r\n"), end))),
    peek(PY_LIST_END),
    // The next call on the line decides in turn (for a few; then its start is enough).
    peek(calls <= 1 ? PY_NEXT : seq(PY_NEXT_CALL, pyArgs, pyAfter(calls - 1))),
  )
const PY_AFTER: Pattern = pyAfter(4)
/**
 * A bare call as its line: an offered tool's name (the row's gate), its arguments closed on the line,
 * then {@link PY_AFTER}; cut off by the end of the stream inside its arguments, a truncated call.
 */
const PY_BARE_CALL: Pattern = seq(name("ident"), lit("("), cutIn(seq(pyArgs, PY_AFTER)))
const PY_BARE_BODY: BodySpec = { kind: "pythonic", closers: [], lines: true, bare: true }

// --- Qwen3-Coder / Seed-OSS: `<function=NAME>` … `<parameter=K>` … `</function>` ---------------
/**
 * `NAME`, a quoted name with spaces (`<function="get current temperature">`, llama.cpp's Functionary
 * tests) or an unquoted one (`<function=get current temperature>`, Ollama's Qwen3-Coder tests): the
 * plain name first, then the spaced one, each only when the `>` follows (no backtracking).
 */
const FUNCTION_NAME = alt(
  seq(lit('"'), QUOTED_NAME),
  seq(name("function"), peek(lit(">"))),
  seq(name("quoted"), peek(lit(">"))),
)
/** The header, in a peek: it captures nothing (the body's `<function=` starts the call). */
const FUNCTION_HEADER = seq(
  lit("<function="),
  alt(
    seq(lit('"'), word("quoted", 256), lit('"')),
    seq(word("function", 256), peek(lit(">"))),
    seq(word("quoted", 256), peek(lit(">"))),
  ),
  lit(">"),
)
/**
 * A header after `<tool_call>`, confirmed as for a bare one (a parameter tag or a close after it),
 * or cut off by the end of the stream (a truncated call): `<tool_call> <function=NAME>` in prose is text.
 */
const ENVELOPED_FUNCTION_HEADER = seq(
  FUNCTION_HEADER,
  ws,
  alt(
    peek(alt(lit("<parameter="), lit("</function>"), lit("</tool_call>"), lit("</parameter>"))),
    cut("<parameter=", "</function>", "</tool_call>", "</parameter>"),
  ),
)
/**
 * What confirms a bare call naming a tool that is not offered (`FormatRow.unoffered`): the rest of
 * the call to its own close (`callEnd`), then the envelope token that ends the group, or the next
 * bare call (`next`) and so on, for a few calls (the look stays within the hold window).
 */
const envelopeAfter = (callEnd: string, next: Pattern, closer: Pattern, calls = 4): Pattern =>
  seq(
    to(callEnd),
    ws,
    calls <= 1 ? closer : alt(closer, seq(peek(next), envelopeAfter(callEnd, next, closer, calls - 1))),
  )

/** A suffix a corrupted `<tool_call` opener carries before its `>` (`_1`, `:0`, `-x`). */
const OPENER_SUFFIX = seq(alt(lit("_"), lit(":"), lit("-")), word("ident", 16), lit(">"))
/** A parameter tag with its name, where a header was due (MiMo-V2-Flash writes parameters before the header). */
const PARAMETER_FIRST = seq(lit("<parameter="), word("function", 256), lit(">"))
/** A `<function` header that does not parse, on its own line, followed by a parameter tag or a closer (or its own close). */
const MALFORMED_FUNCTION_HEADER = seq(
  lit("<function"),
  word("quoted", 256),
  alt(
    seq(opt(lit(">")), lit("\n"), ws, alt(lit("<parameter="), lit("</function>"), lit("</tool_call>"))),
    // Or closed before its `>` (`<function=broken</function>`, vLLM `tests/parser/engine/test_berrylm.py`).
    lit("</function>"),
  ),
)
/**
 * What confirms a bare `<function=NAME>` (no envelope) as a call: a parameter tag, the function's
 * own close, or the orphan envelope closer, right after it. Prose that only names the header
 * (`Qwen models emit <function=read_file> followed by…`) is shown.
 */
const FUNCTION_CONFIRMED = seq(
  FUNCTION_NAME,
  lit(">"),
  ws,
  // (A stray `</parameter>` first, then the parameters: signalnine/q27#24.)
  peek(alt(lit("<parameter="), lit("</function>"), lit("</tool_call>"), lit("</parameter>"))),
)
const qwenBody = (...closerLiterals: string[]): BodySpec =>
  tags(
    [call("<function=", seq(FUNCTION_NAME, lit(">")))],
    structure("<parameter="),
    callEnds("</function>"),
    closers(...closerLiterals),
  )

// --- DeepSeek V3/R1/V3.1 and look-alikes (FORMATS.md: `｜`/`|` bars, `▁`/`_`/` `/`\_` joins) ---
const BARS = ["｜", "|"] as const
const JOINS = ["▁", "_", " ", "\\_"] as const
const deepseek = (...words: string[]): string[] =>
  BARS.flatMap((bar) => JOINS.map((join) => `<${bar}${words.join(join)}${bar}>`))
const DS_CALLS_BEGIN = [
  ...deepseek("tool", "calls", "begin"),
  ...BARS.map((bar) => `<${bar}tool▁calls${bar}>`),
]
const DS_CALLS_END = deepseek("tool", "calls", "end")
const DS_CALL_BEGIN = deepseek("tool", "call", "begin")
const DS_CALL_END = deepseek("tool", "call", "end")
const DS_SEP = deepseek("tool", "sep")
const DS_SEP_ANY = alt(...DS_SEP.map(lit))
/**
 * `function<｜tool▁sep｜>NAME` (V3/R1) or `NAME<｜tool▁sep｜>` (V3.1); also with the separator
 * written `.` (`function.NAME`, TensorRT-LLM's reading) or missing before the payload
 * (`NAME\n```json`, `NAME{`).
 */
const DS_CALL_NAME = alt(
  seq(lit("function"), alt(DS_SEP_ANY, lit(".")), name("ident")),
  seq(name("ident"), peek(alt(DS_SEP_ANY, seq(ws, alt(lit("```"), lit("{")))))),
)
const deepseekEntries: BodyEntry[] = [
  ...DS_CALL_BEGIN.map((literal) => call(literal, DS_CALL_NAME)),
  ...callEnds(...DS_CALL_END),
]
const deepseekBody: BodySpec = tags(deepseekEntries, closers(...DS_CALLS_END))
/**
 * DeepSeek's `function<｜tool▁sep｜>` without the per-call marker before it: one literal for every
 * spelling of the separator (prose often says "function"; one comparison rejects it).
 */
const DS_FUNCTION_SEP = seq(alt(...DS_SEP.map((sep) => lit(sep.slice(1)))), name("ident"))

// --- DeepSeek V3.2 / V4 DSML -------------------------------------------------------------------
/**
 * The DSML marker as V4 writes it (`｜DSML｜`, U+FF5C) and as it degrades in the wild: ASCII bars,
 * doubled bars (`<||DSML||tool_calls>`, `<｜｜DSML｜｜…`, deepseek-ai/DeepSeek-V3#1244, AgentFlocks/flocks
 * PR #687), a space before the tag name (`<||DSML|| invoke name=…>`; V4.1 writes `<｜DSML｜ calls>`,
 * vLLM `tests/parser/engine/test_deepseek_v41.py`), and spaced doubled bars (`< | | DSML | | invoke`).
 */
const DSML = [
  ...[...BARS, "‖"].flatMap((bar) => [
    ...[bar, bar + bar].flatMap((bars) => [
      `${bars}DSML${bars}`,
      `${bars}DSML${bars} `,
      ` ${bars} DSML ${bars} `,
    ]),
    ` ${bar} ${bar} DSML ${bar} ${bar} `,
  ]),
  // GigaChat 3.5 writes DSML's grammar under its own marker (vLLM `gigachat35`,
  // tests/tool_parsers/test_gigachat35_tool_parser.py: `<｜GCML｜tool_calls>`, `<｜GCML｜invoke name=…>`).
  ...BARS.map((bar) => `${bar}GCML${bar}`),
]
/**
 * The envelope's tag: V3.2's `function_calls`, V4's `tool_calls`, V4.1's `calls`, and the names V4
 * also writes in the wild: `tool_use` (AgentFlocks/flocks PR #687), `toolcall`
 * (vllm-project/vllm-ascend#13794), `toolcalls` and `tool` (vllm-project/vllm#51914, #56141), `call`
 * (V4.1 with its wrapper cut short, vLLM's `test_deepseek_v41.py`). Longest first: an `alt` takes the
 * first that matches, and each is followed by the tag's end.
 */
const DSML_ENVELOPES = [
  "function_calls",
  "tool_calls",
  "toolcalls",
  "tool_use",
  "toolcall",
  "calls",
  "tool",
  "call",
]
const DSML_ENVELOPE: Pattern = alt(...DSML_ENVELOPES.map(lit))
/**
 * An envelope's opening tag, one literal a spelling with its `>`, so that a cut-off marker
 * (`<｜DSML｜tool_ca`) is decided by the literal walk alone, as in prose it mostly is.
 */
/** The envelope opener's `<`, or `‹` (U+2039) in its place (`‹｜DSML｜ calls>`, zed-industries/zed#59503). */
const DSML_ANGLES = ["<", "‹"]
const DSML_OPEN = DSML_ANGLES.flatMap((angle) =>
  DSML.flatMap((d) => DSML_ENVELOPES.map((tag) => `${angle}${d}${tag}>`)),
)
/**
 * The same tag drifted: its `>` after a space (`<|DSML|function_calls >`, a DSML proxy's
 * whitespace-drift tests) or missing, a line break before the first invoke (`<｜DSML｜tool_calls⏎<｜DSML｜invoke …`,
 * anomalyco/opencode#24566).
 */
const DSML_OPEN_DRIFT = DSML.flatMap((d) =>
  DSML_ENVELOPES.flatMap((tag) => [`<${d}${tag} `, `<${d}${tag}\n`]),
)
/**
 * A closing tag inside a call, by its `</` and marker, its name read by a pattern (a list of every
 * marker with every name would hold hundreds of body literals). Not in prose: there a literal that
 * ends at the marker would be matched at every cut-off marker of a stream.
 */
const DSML_TAG_END = DSML.map((d) => `</${d}`)
/** An envelope's closing tag, after its `</` and marker. */
const DSML_END_TAIL: Pattern = seq(DSML_ENVELOPE, ws, lit(">"))
/** The envelope's closer as body entries and as a bare call's tails. */
const DSML_END_ENTRIES: BodyEntry[] = DSML_TAG_END.map((literal) => ({
  literal,
  role: "closer",
  pattern: DSML_END_TAIL,
}))
const DSML_END_TAILS: readonly BareTail[] = DSML_TAG_END.map((literal) => ({
  literal,
  pattern: DSML_END_TAIL,
}))
/** (Longest first: `</||DSML||` would take the start of `</||DSML|| tool_calls>` and fail it.) */
const DSML_END: Pattern = seq(
  alt(...[...DSML_TAG_END].sort((a, b) => b.length - a.length).map(lit)),
  DSML_END_TAIL,
)
/**
 * An invoke's `name` attribute, as the peers accept it: spaces around the `=`, single or curly
 * quotes (`name = 'x'`, `name=“x”`); then the tag's end (a self-closing `<…invoke name="k"
 * string="v" />`, which V4 writes for a parameter, is not a call: codex-relay PR #49).
 */
const INVOKE_NAME: Pattern = seq(
  ws,
  lit("name"),
  ws,
  lit("="),
  ws,
  alt(
    seq(lit('"'), QUOTED_NAME),
    seq(lit("'"), name("ident"), lit("'")),
    seq(lit("\u201c"), name("ident"), lit("\u201d")),
  ),
  ws,
  peek(lit(">")),
)
const DSML_INVOKE = DSML.map((d) => `<${d}invoke`)
/** An invoke's tag starts here, with or without its marker (one `<`, then the rest by its next character). */
const INVOKE_AHEAD: Pattern = peek(
  seq(lit("<"), alt(...[...DSML_INVOKE, "<invoke"].map((t) => lit(t.slice(1))))),
)
const DSML_PARAMETER = DSML.map((d) => `<${d}parameter`)
/** SGLang's V3.2 detector also reads the tags without their marker inside a DSML envelope (`<invoke name=…>`). */
const dsmlEntries: BodyEntry[] = [
  ...[...DSML_INVOKE, "<invoke"].map((literal) => call(literal, INVOKE_NAME)),
  ...structure(...DSML_PARAMETER, "<parameter"),
  ...callEnds(...DSML.map((d) => `</${d}invoke>`), "</invoke>"),
]
const dsmlBody: BodySpec = tags(dsmlEntries, DSML_END_ENTRIES)
/** dots' invokes: the name as DSML's peers read it, Anthropic's parameter tags. */
const dotsEntries: BodyEntry[] = [
  // (Also unquoted: vLLM's dots parser reads `name\s*=\s*([^>]+)`, quotes stripped if any.)
  call(
    "<invoke",
    alt(seq(INVOKE_NAME, lit(">")), seq(ws, lit("name"), ws, lit("="), ws, name("ident"), ws, lit(">"))),
  ),
  ...structure("<parameter"),
  ...callEnds("</invoke>"),
]
/**
 * A call's JSON inside the envelope, bare or in a ```` ```json ```` fence (SGLang's V3.2 detector
 * reads a JSON payload in an invoke; V4 also writes one straight in the envelope): call objects, or
 * a name then its arguments (`NAME\n```json\n{…}\n````, DeepSeek V3's call shape). The fence's
 * close ends it, and the envelope's closer after the fence (or right after the JSON) joins it.
 */
const FENCE_OPEN: Pattern = seq(lit("```"), opt(word("letters")))
const dsmlJson = (names: "keys" | "none"): JsonBody => ({
  ...json(names, "```"),
  bare: { tails: DSML_END_TAILS },
})
const DSML_JSON_CALLS: Pattern = seq(
  ws,
  opt(FENCE_OPEN),
  ws,
  peek(alt(seq(lit("{"), ws, lit('"')), seq(lit("["), ws, lit("{")))),
)
const DSML_NAMED_PAYLOAD: Pattern = seq(
  ws,
  alt(seq(lit("function"), alt(DS_SEP_ANY, lit(".")), name("ident")), name("ident")),
  opt(DS_SEP_ANY),
  ws,
  opt(FENCE_OPEN),
  ws,
  peek(lit("{")),
)
/** What joins a bare invoke after its close: a repeat of the close (then perhaps the envelope's closer), or the envelope's closer. */
const DSML_INVOKE_TAILS: readonly BareTail[] = [
  ...DSML.map((d) => ({ literal: `</${d}invoke>`, pattern: opt(seq(ws, DSML_END)) })),
  ...DSML_END_TAILS,
]
/**
 * A parameter written without its invoke (anomalyco/opencode#50206: DeepSeek V4 writes the invoke
 * as a parameter): each parameter runs to its own close, and the invoke's and the envelope's orphan
 * closers after the last one join it. A DSML token is a special token: none of it is the user's text.
 */
const dsmlParameterBody: TagsBody = bareTags(
  [...structure(...DSML_PARAMETER), ...callEnds(...DSML.map((d) => `</${d}parameter>`))],
  DSML_INVOKE_TAILS,
)
/** An invoke's or the envelope's closing tag, from its `</` and marker (longest first, as in {@link DSML_END}). */
const DSML_CLOSE: Pattern = seq(
  alt(...[...DSML_TAG_END].sort((a, b) => b.length - a.length).map(lit)),
  alt(seq(lit("invoke"), ws, lit(">")), DSML_END_TAIL),
)
/**
 * A call in generic XML, `<function><name>NAME</name>…</function>`, that DSML's closers end
 * (`…</function></｜DSML｜invoke></｜DSML｜tool_calls>`, adolfousier/opencrabs#419: DeepSeek V4 writes
 * its invoke in another vocabulary and closes it in its own). The same tags are ordinary XML
 * (srcML, config files), so only the DSML closer right after the call's `</function>` confirms it.
 */
const FUNCTION_NAME_TAG = seq(ws, name("element"), ws, lit("</name>"))
const dsmlFunctionBody: TagsBody = bareTags(
  [...structure("<parameter", "<argument"), ...callEnds("</function>")],
  DSML_INVOKE_TAILS,
)

// --- Kimi K2 -------------------------------------------------------------------------------------
/**
 * A call id, `functions.NAME:0` or `NAME:0`; or a bare counter, `0`, which names no tool (vLLM
 * `tests/tool_parsers/test_kimi_k2_tool_parser.py`, `test_bare_counter`: the parser infers the tool
 * from the arguments, which a detector does not).
 */
const KIMI_NAME = seq(
  ws,
  alt(
    seq(word("digits"), not(word("ident"))),
    seq(opt(lit("functions.")), name("ident"), opt(seq(lit(":"), word("digits")))),
  ),
)
const KIMI_SECTION_END = ["<|tool_calls_section_end|>", "<|tool_call_section_end|>"]
const kimiEntries = [
  call("<|tool_call_begin|>", KIMI_NAME),
  ...structure("<|tool_call_argument_begin|>"),
  ...callEnds("<|tool_call_end|>"),
]

// --- Anthropic-style XML (also DeepSeek V3.2 "simple", Kimi K2.5, MiniMax via Ollama) -----------
// Every tag may carry an XML namespace prefix (Claude's `antml:`, or any other): `ns` rows.
const anthropicCalls = [
  call('<invoke name="', QUOTED_NAME),
  call("<invoke>", seq(ws, nsLit("<tool_name>"), ws, name("element"), ws, nsLit("</tool_name>"))),
]
const anthropicEntries = [
  ...anthropicCalls,
  ...structure("<parameter name=", "<param name=", "<parameters>"),
  ...callEnds("</invoke>"),
]
const FUNCTION_CALLS_END = ["</function_calls>"]
/** What confirms a bare `<invoke name="NAME">` as a call: a parameter tag or its own close right after it. */
const INVOKE_CONFIRMED = seq(
  QUOTED_NAME,
  ws,
  lit(">"),
  ws,
  peek(alt(nsLit("<parameter name="), nsLit("<param name="), nsLit("<parameters>"), nsLit("</invoke>"))),
)

// --- Harmony (gpt-oss) ---------------------------------------------------------------------------
/**
 * A Harmony header is a call only once its structure confirms it (ARCHITECTURE.md#policy: withhold only what is
 * a call): a `<|channel|>` in the header, its `<|message|>`, a JSON payload, or the stream cut off
 * inside the header. Prose that names a recipient (`<|start|>assistant to=functions.bash and
 * more…`) is shown.
 */
const HARMONY_CONFIRMED = alt(
  seq(ws, lit("<|message|>")),
  peek(seq(ws, alt(lit("{"), lit("[")))),
  seq(ws, cut("<|constrain|>", "<|message|>", "<|channel|>", "json")),
)
/*
 * A special token may be followed by a space: LLM-jp-4.1's tokenizer writes one after each
 * (`<|start|> assistant<|channel|> commentary <|constrain|> json<|message|> {…}`, llama.cpp
 * `common/parsers/llm-jp-harmony.cpp`), so `ws` follows each token the patterns below read.
 */
const HARMONY_CHANNEL = seq(ws, lit("<|channel|>"), ws, word("letters"))
/**
 * ` <|constrain|>json` or a glued ` json`, optional; a run of glitch tokens may stand before it
 * (gpt-5.4 via LiveKit Inference, livekit/agents-js#1632: `to=functions.saveAnswer  天天中彩票能json`).
 */
const HARMONY_CONSTRAIN = opt(
  seq(
    ws,
    opt(word("nonascii", 32)),
    alt(seq(lit("<|constrain|>"), ws, word("letters")), seq(lit("json"), not(word("ident")))),
  ),
)
const HARMONY_MESSAGE = opt(seq(ws, lit("<|message|>")))
/** `commentary<|message|>` then a JSON payload: a commentary message that carries a call's arguments. */
const COMMENTARY_ARGS = seq(
  ws,
  lit("commentary"),
  ws,
  lit("<|message|>"),
  peek(seq(ws, alt(lit("{"), lit("[")))),
)
/** It ends at its message's end (or a call's). */
const COMMENTARY_BODY = json("none", "<|end|>", "<|call|>")
/** `to=functions.NAME` (or, after a special token, `to=NAME`). */
const HARMONY_TO = seq(lit("to="), opt(lit("functions.")), name("ident"))
/** A recipient whose channel came before it: the rest of the header is optional. */
const HARMONY_AFTER_CHANNEL = seq(HARMONY_TO, HARMONY_CONSTRAIN, HARMONY_MESSAGE)
/** What follows a recipient with no channel before it: a channel, or the confirmation. */
const HARMONY_RECIPIENT_TAIL = alt(
  seq(HARMONY_CHANNEL, HARMONY_CONSTRAIN, HARMONY_MESSAGE),
  seq(HARMONY_CONSTRAIN, HARMONY_CONFIRMED),
)
/** A recipient with no channel before it. */
const HARMONY_RECIPIENT = seq(HARMONY_TO, HARMONY_RECIPIENT_TAIL)
const harmonyBody = json("none", "<|call|>")
/** With its special tokens stripped, `<|call|>` is stripped too: its absence cuts nothing off. */
const strippedHarmonyBody: BodySpec = { ...harmonyBody, closerOptional: true }

// --- MiniMax M3: every tag carries the namespace token ]<]minimax[>[ -----------------------------
const NS = "]<]minimax[>["
const M3_INVOKE = `${NS}<invoke name="`
/** Parameters are tags named after the key, so any namespaced tag inside a call is structure. */
const m3Entries: BodyEntry[] = [
  call(M3_INVOKE, QUOTED_NAME),
  ...structure(`${NS}<`),
  ...callEnds(`${NS}</invoke>`),
]

// --- Step3: DeepSeek's per-call tokens (ASCII `_`) around a `<steptml:invoke>` ---------------------
const STEP3_CALL_BEGIN = "<｜tool_call_begin｜>"
/** The `function<｜tool_sep｜>` prefix is often missing (SGLang's step3 detector tolerates it). */
const STEP3_INVOKE = seq(
  ws,
  opt(lit("function<｜tool_sep｜>")),
  ws,
  lit('<steptml:invoke name="'),
  QUOTED_NAME,
)
const step3Entries: BodyEntry[] = [
  call('<steptml:invoke name="', QUOTED_NAME),
  ...structure("<steptml:parameter"),
  ...callEnds("</steptml:invoke>"),
]

// --- Kimi K3 "XTML": `<|open|>TAG …<|sep|>` … `<|close|>TAG<|sep|>` (vLLM `kimi_k3`) -----------------
/**
 * A K3 marker as the template writes it (`<|open|>call`) and with the spaces a detokenizer puts
 * between special tokens (`<|open|> call`; vLLM's `kimi_k3` parser reads `<|open|>\s*call\s*…`).
 */
const k3 = (token: string, tag: string, rest = ""): string[] => [
  `${token}${tag}${rest}`,
  `${token} ${tag}${rest === "" ? "" : ` ${rest}`}`,
]
/** A call header; also with the section's `<|sep|><|open|>` lost between `tools` and `call` (`<|open|>toolscall tool="…"`). */
const K3_CALLS = [...k3("<|open|>", 'call tool="'), '<|open|>toolscall tool="']
const K3_SECTION = k3("<|open|>", "tools", "<|sep|>")
const K3_SECTION_END = k3("<|close|>", "tools", "<|sep|>")
/**
 * The section's end with the message's run into it (`<|close|>toolsmessage<|sep|>`,
 * `<|close|>toolstoolsmessage<|sep|>`: live leaks quoted in a public coding agent's issue on Kimi K3's
 * markup): `<|close|>tools`, more letters, `<|sep|>`.
 */
const K3_SECTION_END_RUN: BareTail = {
  literal: "<|close|>tools",
  pattern: seq(word("letters"), lit("<|sep|>")),
}
const k3Entries: BodyEntry[] = [
  ...K3_CALLS.map((literal) => call(literal, QUOTED_NAME)),
  ...structure(...k3("<|open|>", "argument")),
  ...callEnds(...k3("<|close|>", "call", "<|sep|>")),
]

/**
 * openPangu's other spelling of LFM2's `<|tool_call_start|>`/`<|tool_call_end|>`: the reserved tokens its
 * older vocabularies use instead (vLLM `pangu_tool_parser.py` falls back to them).
 */
const PANGU = { open: ["[unused11]"], close: ["[unused12]"] }

/**
 * Envelopes around GLM 4.7's call (`NAME<arg_key>K</arg_key><arg_value>V</arg_value>`) in other
 * vocabularies: iQuest-Coder V2's (vLLM `iquest_coder_v2`) and IQuest Q1's (SGLang `iquest_q1`).
 */
const GLM_ENVELOPES: readonly { readonly open: string; readonly close: string }[] = [
  { open: "<iquestcoder_tool_call>", close: "</iquestcoder_tool_call>" },
  { open: "<iquest_tool_call>", close: "</iquest_tool_call>" },
]

// --- dots: Anthropic-style invokes in its own envelope ------------------------------------------
const DOTS = {
  /**
   * Its opener, also with its `<` written `>` as it leaked live (`>dots_function_call>{"name":"accept"…}`,
   * quoted in a public agent-negotiation lab's notes).
   */
  opens: ["<dots_function_call>", ">dots_function_call>"],
  close: "</dots_function_call>",
}

/** LM Studio's request closer, and the spelling Gemma 3 writes through it. */
const LMSTUDIO_END = ["[END_TOOL_REQUEST]", "[TOOL_REQUEST_END]"]

// --- PLaMo 3: `<|plamo:begin_TAG:plamo|>` … `<|plamo:end_TAG:plamo|>` ---------------------------------
const plamo = (edge: "begin" | "end", tag: string): string => `<|plamo:${edge}_${tag}:plamo|>`
const PLAMO = {
  requests: plamo("begin", "tool_requests"),
  requestsEnd: plamo("end", "tool_requests"),
  request: plamo("begin", "tool_request"),
  requestEnd: plamo("end", "tool_request"),
  name: plamo("begin", "tool_name"),
  nameEnd: plamo("end", "tool_name"),
  args: plamo("begin", "tool_arguments"),
  argsEnd: plamo("end", "tool_arguments"),
}
/** The name tag after a request's begin tag: `<|plamo:begin_tool_name:plamo|>NAME<|plamo:end_tool_name:plamo|>`. */
const PLAMO_NAME = seq(ws, lit(PLAMO.name), name("element"), lit(PLAMO.nameEnd))
const plamoEntries: BodyEntry[] = [
  call(PLAMO.request, PLAMO_NAME),
  ...structure(PLAMO.args),
  ...callEnds(PLAMO.requestEnd),
]

// --- Inkling: typed content blocks between special tokens ------------------------------------------
const INKLING = {
  invoke: "<|content_invoke_tool_json|>",
  /** Ends every block: text, thinking, a call. */
  end: "<|end_message|>",
  /** A message's header and the other blocks' openers (a text block, a tool's text, an error, the end of sampling). */
  frame: [
    "<|message_model|>",
    "<|content_text|>",
    "<|content_invoke_tool_text|>",
    "<|content_tool_error|>",
    "<|content_model_end_sampling|>",
  ],
}

// --- Solar Open 2: `<|tool_call:start|>NAME` … `<|tool_call:end|>`, `<|tool_arg:…|>` arguments -------------
const SOLAR = {
  call: "<|tool_call:start|>",
  callEnd: "<|tool_call:end|>",
  arg: "<|tool_arg:start|>",
  value: "<|tool_arg:value|>",
  argEnd: "<|tool_arg:end|>",
}

// --- MiniCPM 5: `<function name="NAME">` … `</function>`, `<param name="K">V</param>` arguments -----------
/**
 * The space before `name` as the tokenizer leaves it: a space, its byte-level `Ġ` (U+0120), or none
 * (vLLM `tests/tool_parsers/test_minicpm5xml_tool_parser.py`: `<function\u0120name=…>`, `<functionname=…>`).
 */
const MINICPM_SPACES = [" ", "\u0120", ""]
const MINICPM_CALLS = MINICPM_SPACES.map((sp) => `<function${sp}name="`)
/** The header with its name in single quotes (SGLang `minicpm4_xml_detector.py` reads `name=['"]…['"]`). */
const MINICPM_CALLS_SQ = MINICPM_SPACES.map((sp) => `<function${sp}name='`)
const MINICPM_PARAMS = MINICPM_SPACES.map((sp) => `<param${sp}name=`)
/** A parameter tag or the call's own close right after the header: prose that names `<function name="x">` is text. */
const minicpmConfirmed = (quotedName: Pattern): Pattern =>
  seq(
    quotedName,
    ws,
    lit(">"),
    ws,
    alt(peek(alt(...MINICPM_PARAMS.map(lit), lit("</function>"))), cut(...MINICPM_PARAMS, "</function>")),
  )
const MINICPM_CONFIRMED = minicpmConfirmed(QUOTED_NAME)
const MINICPM_CONFIRMED_SQ = minicpmConfirmed(SINGLE_QUOTED_NAME)
const minicpmEntries: BodyEntry[] = [
  ...MINICPM_CALLS.map((literal) => call(literal, seq(QUOTED_NAME, ws, lit(">")))),
  ...MINICPM_CALLS_SQ.map((literal) => call(literal, seq(SINGLE_QUOTED_NAME, ws, lit(">")))),
  ...structure(...MINICPM_PARAMS),
  ...callEnds("</function>"),
]

// --- K2 Horizon: GLM's shape in `<ifm|…>` tokens ---------------------------------------------------------
const IFM = {
  calls: "<ifm|tool_calls>",
  callsEnd: "</ifm|tool_calls>",
  call: "<ifm|tool_call>",
  callEnd: "</ifm|tool_call>",
  argKey: "<ifm|arg_key>",
  argType: "<ifm|arg_type>",
  argValue: "<ifm|arg_value>",
}
/** A call's name, then its first argument or its close (or the stream cut off in either). */
const IFM_NAME = seq(
  name("ident"),
  alt(peek(alt(lit(IFM.argKey), lit(IFM.callEnd))), cut(IFM.argKey, IFM.callEnd)),
)
/** The same, capturing nothing (the group's confirm: the body's `<ifm|tool_call>` starts each call). */
const IFM_CALL_AHEAD = seq(
  lit(IFM.call),
  word("ident", 256),
  alt(peek(alt(lit(IFM.argKey), lit(IFM.callEnd))), cut(IFM.argKey, IFM.callEnd)),
)
/** A repeat of the group's closer: models repeat it; it joins the call. */
const IFM_END_AGAIN = opt(seq(ws, lit(IFM.callsEnd)))
/**
 * Its JSON form: one object a call token; the group's closer after the last one joins it (after a
 * repeat of the call token's close, and with a repeat of its own).
 */
const IFM_JSON: JsonBody = {
  ...json("keys", IFM.callEnd),
  bare: {
    tails: [
      { literal: IFM.callEnd, pattern: opt(seq(ws, lit(IFM.callsEnd), IFM_END_AGAIN)) },
      { literal: IFM.callsEnd, pattern: IFM_END_AGAIN },
    ],
  },
}
const ifmEntries: BodyEntry[] = [
  call(IFM.call, IFM_NAME),
  ...structure(IFM.argKey, IFM.argType, IFM.argValue),
  ...callEnds(IFM.callEnd),
]

// --- GLM / Hunyuan: `NAME` then `<arg_key>` ------------------------------------------------------
const argTags = structure("<arg_key>", "<arg_value>")
/** Hunyuan's call name and what confirms it: `<tool_sep>` (HY3), an arg tag or the call's close (HY v4). */
const HUNYUAN_CALL_NAME = seq(name("ident"), peek(alt(lit("<tool_sep>"), lit("<arg_"), lit("</tool_call>"))))
/** The same, capturing nothing (a section's confirm: the body's `<tool_call>` starts each call). */
const HUNYUAN_CALL = seq(word("ident", 256), alt(lit("<tool_sep>"), lit("<arg_"), lit("</tool_call>")))
const glmBody = tags(argTags, closers("</tool_call>"))
/** A Hunyuan call without its section: it ends at its own close, which a repeat of it or the section's orphan closer joins. */
const HUNYUAN_BARE = bareTags([...argTags, ...callEnds("</tool_call>")], ["</tool_call>", "</tool_calls>"])

/**
 * `: "NAME", "parameters": {` (or `"arguments"`) after a `"name"` key: the keys that make a JSON
 * object a call (vLLM's llama3_json and SGLang's JSON array parsers read exactly these). An object
 * that only has a `"name"` (`{"name": "my-app", "version": "1.0.0"}`, a list of people) is data.
 */
const CALL_KEYS_AFTER_NAME: Pattern = seq(
  ws,
  lit(":"),
  ws,
  lit('"'),
  QUOTED_NAME,
  ws,
  lit(","),
  ws,
  alt(lit('"parameters"'), lit('"arguments"')),
  ws,
  lit(":"),
  ws,
  peek(lit("{")),
)
/** `"name": "NAME", "parameters": {`: a call object's first keys, or a stream cut off inside them. */
const CALL_KEYS: Pattern = seq(ws, lit('"name"'), cutIn(CALL_KEYS_AFTER_NAME))
/** `name": "NAME", "parameters": {` after the object's `{"`: a Llama 3.x call after prose. */
const LLAMA_CALL_AFTER_PROSE: Pattern = seq(lit('name"'), CALL_KEYS_AFTER_NAME)
/**
 * llama.cpp's generic format (a model whose template it does not know answers in JSON): the call
 * object under `"tool_call"`, or a list of them under `"tool_calls"`, after the outer object's `{"`.
 * Also OpenAI's shape of one call, the call object under `"function"` after `"type": "function"`
 * (Llama 3.2 writes it as its content: vllm-project/vllm#11786,
 * `{"type": "function", "function": {"name": "get_current_traffic", "parameters": {…}}}`).
 */
const GENERIC_WRAPPER: Pattern = alt(
  seq(lit('tool_call"'), ws, lit(":"), ws, lit("{")),
  seq(lit('tool_calls"'), ws, lit(":"), ws, lit("["), ws, lit("{")),
  seq(
    lit('type"'),
    ws,
    lit(":"),
    ws,
    lit('"function"'),
    ws,
    lit(","),
    ws,
    lit('"function"'),
    ws,
    lit(":"),
    ws,
    lit("{"),
  ),
)
/**
 * Bare JSON calls: the closers of the JSON envelopes a model may have dropped the opener of, which
 * then stand alone after the call (`{"name": …}\n</tool_call>`, ollama/ollama#13968).
 */
const ORPHAN_JSON_CLOSERS: readonly BareTail[] = [
  ...["</tool_call>", "</tool_calls>", "</function_call>", "</tools>", ...LMSTUDIO_END].map((literal) => ({
    literal,
  })),
  // dots' call object without its `<dots_function_call>` (vLLM and SGLang `dots`): its closer says whose.
  { literal: DOTS.close, format: "dots" },
]
const bareJson: JsonBody = { ...json("keys"), bare: { tails: ORPHAN_JSON_CLOSERS } }
const genericBody: JsonBody = { ...bareJson, wrapped: true }

/**
 * What may stand between a call header and its JSON payload (Harmony, Mistral v13): a stream that
 * ends on one, or on the start of one, after a header was cut off before its payload.
 */
export const PAYLOAD_INTRODUCERS: readonly string[] = [
  "<|constrain|>",
  "<|message|>",
  "<|channel|>",
  "json",
  "[ARGS]",
]

/**
 * What a lone special token does in its envelope (`open`, `call`, `close`). `frame`: it frames the answer, not a call (Kimi
 * K3's response block, Harmony's final-channel header): a server that parsed the format would
 * have taken it out, so on screen it is a leak of the format, never the user's text. `empty`: an
 * opener whose own closer follows with no call between (`<|tool_call_start|>[]<|tool_call_end|>`,
 * a model that called nothing): the whole envelope, opened and closed, withheld as one.
 */
export type TokenRole = "open" | "call" | "close" | "frame" | "empty"

/**
 * A family's special token on its own (ARCHITECTURE.md#policy: an envelope token with no call after it): withheld and reported, never shown.
 * `slot`: the family's name slot right after the token; an offered tool there is reported.
 *
 * `head`: the rest of the token after its literal (a vocabulary suffix and its `>`).
 *
 * Tag-like markers that prose writes too (`<tool_call>`, `<function_calls>`) are never tokens:
 * without a call they stay text; a stray closer right after a call is absorbed into it instead. A
 * `</…` token is one no prose writes (`</｜DSML｜tool_calls>`, HY v4's `</tool_call:opensource>`),
 * and the scan stops only where `</` is followed by one of its third characters (`t`, `a`, a bar).
 */
const token = (
  role: TokenRole,
  literals: readonly string[],
  slot?: Pattern,
  head: Pattern = EMPTY,
): FormatRow =>
  opener(literals, slot === undefined ? head : seq(head, opt(peek(seq(ws, slot)))), json("none"), {
    token: role,
    opening: role === "open" || role === "empty",
  })

const KIMI_SLOT = seq(opt(lit("functions.")), name("ident"))
const DS_SLOT = seq(opt(lit("function")), opt(DS_SEP_ANY), name("ident"))
const GEMMA_SLOT = seq(lit("call:"), name("ident"))
/** A bare Gemma 4 call's arguments, and the closer it may still be written with (`<turn|>` too, as vLLM reads it). */
const GEMMA_BARE_BODY: JsonBody = {
  ...json("none"),
  bare: { tails: [{ literal: "<tool_call|>" }, { literal: "<turn|>" }] },
}
const GEMMA_BARE_ROW = {
  opening: false,
  structured: true,
  gate: true,
  unoffered: to("<tool_call|>"),
} as const
/** `NAME{}` or `NAME{KEY:`: a Gemma call's name and the start of its arguments, after `call:` or `<call>`. */
const GEMMA_BARE = seq(name("ident"), peek(seq(lit("{"), alt(lit("}"), seq(word("ident"), lit(":"))))))

/**
 * FunctionGemma's `call:NAME{…}` between a format's own open and close tokens: its rows, the
 * opener then the tokens. FunctionGemma and Gemma 4 differ only in those tokens.
 */
const gemmaCalls = (open: string, close: string): FormatRow[] => [
  opener(
    [open],
    // (`<|tool_call>:call:NAME{`: a stray colon after the token, vLLM `gemma4_utils` reads it too.)
    seq(ws, opt(lit(":")), peek(lit("call:"))),
    tags([call("call:", seq(name("ident"), lit("{")))], closers(close)),
    { structured: true },
  ),
  token("open", [open], GEMMA_SLOT),
  token("close", [close]),
]

/**
 * Every format's rows: the ways its calls start, then its special tokens on their own. Keyed by
 * format id, so a format without an entry, or an entry for no format, is a type error. Adding a
 * format is adding an entry here (and its id, its information and its leak renderer: `FORMATS.md`,
 * "Adding a format"); the state machine knows no format by name.
 *
 * Order is priority. Rows that share an opening literal are tried in key order, then in order
 * within a format, and the first whose confirm grammar matches wins; every token row comes after
 * every opener (a token a call follows is a call first). Rows whose literals differ do not
 * compete that way: the longest literal that confirms wins. So the keys are not in catalogue
 * order; each format stands before those it must win against:
 * - `<tool_call>`: Qwen3-Coder, Hermes, GLM, then Hunyuan (each confirm reads what follows);
 * - `<function=NAME>`: Functionary's JSON payload before Qwen3-Coder's bare header;
 * - `<function name="NAME">`: Functionary's JSON payload before MiniCPM 5's parameter tags;
 * - `<tool_calls>`: MiniMax M1 (objects), Jamba then Apriel (the same list), Hunyuan;
 * - `<function_calls>`: Olmo 3's pythonic line before Anthropic XML;
 * - `[` at the start of a response: xLAM's JSON before a pythonic list;
 * - a bare name at the start: Mistral's `NAME[ARGS]{` before Functionary v3.2's `NAME\n{`, then
 *   Granite's `NAME(…)` line (each confirm reads what follows the name);
 * - `<|tool_call_begin|>`: Kimi K2 before DeepSeek's ASCII spelling, and `<｜tool_calls_begin｜>`,
 *   `<｜tool_call_begin｜>`: Step3 before DeepSeek.
 */
export const FORMAT_ROWS: { readonly [F in FormatId]: readonly FormatRow[] } = {
  mistral: [
    // Mistral: `[TOOL_CALLS] [{…}]` (pre-v11) and `[TOOL_CALLS]NAME[ARGS]{…}` / `NAME{…}` (v11+).
    opener(["[TOOL_CALLS]"], seq(ws, peek(lit("["))), json("keys")),
    opener(
      ["[TOOL_CALLS]"],
      // v13 may write the call id between the name and `[ARGS]` (`NAME[CALL_ID]a1b2c3d4e[ARGS]{…}`).
      seq(ws, name("ident"), MISTRAL_CALL_ID, opt(lit("[ARGS]")), ws, peek(lit("{"))),
      json("none"),
      { structured: true },
    ),
    // A server that strips special tokens leaves `NAME[ARGS]{…}` (mlx-lm's mistral parser reads that):
    // at the start of the response for an offered tool, the whole call. Elsewhere the name went out
    // as prose before `[ARGS]` could tell (a letter literal per tool would slow every scan): from
    // `[ARGS]` on, the call is withheld, unnamed.
    opener([...NAME_STARTS], MISTRAL_BARE_CALL, json("none"), {
      where: "anchor",
      opening: false,
      gate: true,
      bareName: true,
      structured: true,
    }),
    opener(["[ARGS]"], seq(ws, peek(lit("{"))), json("none"), { opening: false }),
    token("open", ["[TOOL_CALLS]"], name("ident")),
  ],
  functionary: [
    // Functionary v3.1: `<function=NAME>{json}</function>`. A JSON payload after the header
    // is Functionary's, so it goes before Qwen3-Coder's bare `<function=NAME>`.
    opener(["<function="], seq(FUNCTION_NAME, lit(">"), ws, peek(lit("{"))), tags(closers("</function>")), {
      gate: true,
      structured: true,
    }),
    // The attribute spelling llama.cpp's Hermes parser also reads (`<function name="NAME">\n{json}`).
    opener(
      ['<function name="'],
      seq(QUOTED_NAME, ws, lit(">"), ws, peek(lit("{"))),
      tags(closers("</function>")),
      { gate: true, structured: true },
    ),
    // Functionary v3.2: `>>>NAME\n{…}` at a line start; `all` is plain text by definition.
    // The next call follows the payload directly (`{…}>>>NAME`: "closing: next `>>>`").
    // Text comes before a call with no line break (llama.cpp tests/chat: `What's up?>>>NAME\n{…}`).
    opener([">>>"], seq(not(lit("all\n")), name("ident"), lit("\n")), json("none"), {
      gate: true,
      glued: true,
    }),
    // Its first call may omit the `>>>` (`NAME\n{…}` as the whole response, llama.cpp tests/chat): a
    // name only an offered tool's, its JSON payload on the next line.
    opener([...NAME_STARTS], seq(name("ident"), lit("\n"), ws, peek(lit("{"))), json("none"), {
      where: "anchor",
      opening: false,
      gate: true,
      bareName: true,
    }),
  ],
  "qwen3-coder": [
    // Qwen3-Coder with its envelope (FORMATS.md).
    // Also around a malformed header (`<function=get weather`) whose line is followed by the call's
    // structure: the envelope is never the user's text there, and the name stays unknown. (Prose that
    // writes `<tool_call> <function…` with no structure after it is not swallowed.)
    // Or a parameter written before its call's header (`<tool_call>⏎<parameter=K>V</parameter>⏎<function=NAME>⏎</function>`,
    // vLLM `tests/tool_parsers/test_mimov2_flash_tool_parser.py`): the parameter tag after the envelope confirms it.
    opener(
      ["<tool_call>"],
      seq(
        opt(lit(">")),
        ws,
        peek(alt(ENVELOPED_FUNCTION_HEADER, MALFORMED_FUNCTION_HEADER, PARAMETER_FIRST)),
      ),
      qwenBody("</tool_call>"),
    ),
    // A corrupted opener with a suffix (`<tool_call_1>`, `<tool_call:0>`) right before a real call.
    opener(["<tool_call"], seq(OPENER_SUFFIX, ws, peek(ENVELOPED_FUNCTION_HEADER)), qwenBody("</tool_call>")),
    // Without its opening envelope: `<function=NAME>` with NAME offered (the common leak).
    opener(
      ["<function="],
      FUNCTION_CONFIRMED,
      bareTags(
        [
          call("<function=", seq(FUNCTION_NAME, lit(">"))),
          ...structure("<parameter="),
          ...callEnds("</function>"),
        ],
        ["</tool_call>"],
      ),
      {
        gate: true,
        opening: false,
        unoffered: envelopeAfter("</function>", lit("<function="), lit("</tool_call>")),
      },
    ),
  ],
  hermes: [
    // Hermes JSON, plus the tag variants models substitute (`<tools>`, `<function_call>`).
    // Also a Python dict in the same envelope (RWKV's legacy calls, vLLM `rwkv`,
    // `test_rwkv_tool_parser.py`: `<tool_call>\n{'arguments': {…}, 'name': 'read', …}`, often with no
    // closer). Its lexer reads `'` strings too, which valid JSON never holds outside a string.
    opener(["<tool_call>"], HERMES_START, { ...json("keys", "</tool_call>"), quotes: "python" }),
    opener(["<tools>"], JSON_START, json("keys", "</tools>")),
    // The other wrappers llama.cpp's Hermes parser accepts (`<tool>`, `<response>`, `<json>`, …):
    // tags prose uses for other JSON too, so only a call object (`"name"` first) opens one.
    ...HERMES_WRAPPERS.map((tag) => opener([`<${tag}>`], JSON_CALL_START, json("keys", `</${tag}>`))),
    // granite-20b-fc writes `<function_call>{…}` with no closer: the closer is not due.
    opener(["<function_call>"], JSON_START, {
      ...json("keys", "</function_call>"),
      closerOptional: true,
    }),
    // Step-Audio 2: the tool's type, its name and its JSON arguments a line each
    // (`<tool_call>function⏎NAME⏎{…}</tool_call>`, vLLM `step_audio_2_tool_parser.py`).
    opener(
      ["<tool_call>"],
      // (The type right after the token, as the template writes it: a confirm that starts with `ws`
      // costs a read at every `<tool_call>`.)
      seq(lit("function\n"), name("ident"), lit("\n"), ws, peek(lit("{"))),
      json("none", "</tool_call>"),
      { structured: true },
    ),
    // DeepSeek-V4 hosted: `<tool_call id="…" name="NAME">{json}</tool_call>`.
    opener(
      ["<tool_call "],
      seq(
        opt(seq(lit('id="'), word("quoted", 256), lit('"'), ws)),
        lit('name="'),
        QUOTED_NAME,
        opt(seq(ws, lit('id="'), word("quoted", 256), lit('"'))),
        ws,
        lit(">"),
      ),
      json("none", "</tool_call>"),
      { structured: true },
    ),
  ],
  glm: [
    // GLM-4.5/4.6 (`NAME\n<arg_key>`) and 4.7/5 (`NAME<arg_key>`, zero-arg `NAME</tool_call>`).
    opener(
      ["<tool_call>"],
      seq(
        AGAIN,
        opt(lit("\n")),
        name("ident"),
        // Any arg tag, even a malformed one (`<arg_value>` first, `<arg_key >`), after optional spaces;
        // a stray `</arg_value>` where a zero-argument call closes (fw-ai-external/python-sdk#119:
        // `<tool_call>tool_12</arg_value>`), or a second `<tool_call>` where the first `<arg_key>`
        // belongs (getsigit/sigit#94: `<tool_call>bash<tool_call>command</arg_key>`).
        peek(
          alt(
            lit("\n"),
            lit("\r\n"),
            seq(ws, lit("<arg_")),
            lit("</tool_call>"),
            lit("</arg_"),
            lit("<tool_call>"),
          ),
        ),
      ),
      glmBody,
    ),
    // GLM-5.3-Flash's JSON form: the name (after a display name and `/`, or alone), `>`, then the JSON
    // arguments, the closer often left out (SGLang `glm53_flash_detector.py`:
    // `<tool_call>Weather/get_weather_by_city>{"location": "Beijing"}`).
    opener(
      ["<tool_call>"],
      // (The display name is read as a name, then replaced by the one after its `/`: one read of the
      // first word, not one per alternative.)
      seq(name("ident"), alt(lit(">"), seq(lit("/"), name("ident"), lit(">"))), ws, peek(lit("{"))),
      { ...json("none", "</tool_call>"), closerOptional: true },
      { structured: true },
    ),
    // Poolside Laguna writes GLM-4.7's call, and its parser reads a name with spaces in it (and
    // around it: vLLM `poolside_v1`, `<tool_call>  get weather  <arg_key>`). Words before an argument
    // tag are prose's too ("put <tool_call> tag before <arg_key>"): only an offered tool's name with
    // a space in it, not without tools, and only before an argument (`<tool_call> tool </tool_call>`
    // names a tag).
    opener(["<tool_call>"], seq(ws, name("spaced", 64), ws, peek(lit("<arg_key>"))), glmBody, {
      gate: true,
      offeredOnly: true,
    }),
    // A zero-argument call (`<tool_call>NAME</tool_call>`) cut off right after its name: the
    // stream ends there. Only for an offered tool, since nothing but the name confirms it.
    opener(["<tool_call>"], seq(opt(lit("\n")), name("ident"), end), glmBody, {
      gate: true,
    }),
    // The same call in another vocabulary's envelope (special tokens: no prose writes them): the name,
    // then an argument or the close (or the stream cut off in either).
    ...GLM_ENVELOPES.map(({ open, close }) =>
      opener(
        [open],
        seq(
          opt(lit("\n")),
          name("ident"),
          ws,
          alt(peek(alt(lit("<arg_key>"), lit(close))), cut("<arg_key>", close)),
        ),
        tags(argTags, closers(close)),
      ),
    ),
    token(
      "open",
      GLM_ENVELOPES.map((e) => e.open),
      name("ident"),
    ),
    token(
      "close",
      GLM_ENVELOPES.map((e) => e.close),
    ),
  ],
  "minimax-m1": [
    // MiniMax M1: call objects inside `<tool_calls>` (a list there is Jamba's).
    opener(
      ["<tool_calls"],
      seq(lit(">"), ws, peek(seq(lit("{"), ws, lit('"')))),
      json("keys", "</tool_calls>"),
    ),
  ],
  jamba: [
    // Jamba. Apriel 1.5 writes the same thing: the first of the two enabled reports it.
    opener(
      ["<tool_calls"],
      seq(lit(">"), ws, peek(seq(lit("["), ws, lit("{")))),
      json("keys", "</tool_calls>"),
    ),
  ],
  apriel: [
    // Apriel 1.5: Jamba's text, reported as `apriel` only when `jamba` is not enabled.
    opener(
      ["<tool_calls"],
      seq(lit(">"), ws, peek(seq(lit("["), ws, lit("{")))),
      json("keys", "</tool_calls>"),
    ),
  ],
  hunyuan: [
    // Hunyuan HY3: its per-call tag without its section, after Qwen3-Coder's, Hermes' and GLM's; HY v4
    // writes no `<tool_sep>` (`<tool_call:opensource>NAME<arg_key:opensource>…`: GLM 4.7's shape, told
    // apart by the family's suffix). Without its section, a call ends at its own close.
    // A repeat of the call's close, or the section's orphan closer, joins it.
    opener(["<tool_call>"], seq(AGAIN, HUNYUAN_CALL_NAME), HUNYUAN_BARE),
    // With its section tag, and a call in it (prose names both tags: `Wrap it in <tool_calls> <tool_call> tags`).
    opener(
      ["<tool_calls>"],
      seq(ws, peek(cutIn(seq(lit("<tool_call>"), HUNYUAN_CALL)))),
      tags(
        [call("<tool_call>", seq(name("ident"), opt(lit("<tool_sep>"))))],
        argTags,
        callEnds("</tool_call>"),
        closers("</tool_calls>"),
      ),
    ),
    // HY v4's spelling only (its tokens are never prose; the plain tags are GLM's or prose's): a call
    // cut off right after its name, for an offered tool, as GLM's plain one is read ...
    opener(["<tool_call>"], seq(name("ident"), end), HUNYUAN_BARE, { gate: true, familyOnly: true }),
    // ... and a call's arguments without its `<tool_call:…>NAME` (the name went out as text): from the
    // first argument tag to the call's close, unnamed.
    opener(["<arg_key>"], seq(word("quoted"), lit("</arg_key>"), ws, lit("<arg_value>")), HUNYUAN_BARE, {
      opening: false,
      bodyAt: 0,
      familyOnly: true,
    }),
  ],
  "llama3-json": [
    // Llama 3.x: `<|python_tag|>` then JSON or `tool.call(…)`; bare JSON at the start.
    opener(
      ["<|python_tag|>"],
      seq(ws, peek(lit("{"))),
      // `<|eom_id|>`/`<|eot_id|>` end the message: a server strips them, so the end of the stream is as good.
      { ...json("keys", "<|eom_id|>", "<|eot_id|>"), closerOptional: true },
    ),
    opener(
      ["<|python_tag|>"],
      seq(ws, peek(seq(word("ident"), lit("(")))),
      pythonic("lines", "<|eom_id|>", "<|eot_id|>"),
    ),
    opener(["{"], CALL_KEYS, bareJson, {
      where: "anchor",
      opening: false,
      bodyAt: 0,
    }),
    // llama.cpp's generic wrapper (`{"tool_call": {"name": …, "arguments": …}}`), by the same rules:
    // the whole response, or after prose naming an offered tool; reported with the bare JSON calls.
    opener(["{"], seq(ws, lit('"'), GENERIC_WRAPPER, CALL_KEYS), genericBody, {
      where: "anchor",
      opening: false,
      bodyAt: 0,
    }),
    // Llama 3.x JSON after a prose preface (vLLM's llama3_json parser finds it anywhere in the text):
    // only a call object naming an offered tool with its `"parameters"`/`"arguments"`.
    opener(['{"', '{ "'], LLAMA_CALL_AFTER_PROSE, bareJson, {
      opening: false,
      bodyAt: 0,
      gate: true,
    }),
    opener(['{"', '{ "'], seq(GENERIC_WRAPPER, ws, lit('"'), LLAMA_CALL_AFTER_PROSE), genericBody, {
      opening: false,
      bodyAt: 0,
      gate: true,
    }),
    token("open", ["<|python_tag|>"]),
  ],
  xlam: [
    // xLAM: a JSON list of calls at the start.
    opener(["["], seq(ws, lit("{"), CALL_KEYS), bareJson, {
      where: "anchor",
      opening: false,
      bodyAt: 0,
    }),
  ],
  pythonic: [
    // Pythonic list at the start and Llama 4's `<|python_start|>`.
    opener(["["], seq(ws, name("ident"), ws, lit("(")), pythonic("list"), {
      where: "anchor",
      opening: false,
      bodyAt: 0,
      gate: true,
    }),
    // A pythonic list after prose (SGLang's pythonic detector finds it anywhere: `Here's a tool call:
    // [get_weather(location='Paris')]`): only when its first call names an offered tool and opens
    // keyword arguments or none (`[NAME(k=` / `[NAME()`), which Markdown links and indexing never write.
    opener(["["], seq(ws, BRACKETED_NAME, ws, lit("("), ws, peek(alt(lit(")"), KWARG))), pythonic("list"), {
      opening: false,
      bodyAt: 0,
      gate: true,
      follows: PYTHONIC_FOLLOWS,
      // Glued to a word it is a subscript (`items[search(k=1)]`), not a list (llama.cpp, SGLang and
      // vLLM test prose always puts a space or punctuation before the list).
      detached: true,
    }),
    opener(["<|python_start|>"], seq(ws, peek(lit("["))), pythonic("list", "<|python_end|>")),
    token("open", ["<|python_start|>"]),
    token("close", ["<|python_end|>"]),
  ],
  step3: [
    // Step3 shares DeepSeek's ASCII-underscore spelling; its `<steptml:invoke` decides, so
    // it goes before DeepSeek.
    opener(
      ["<｜tool_calls_begin｜>"],
      // (A peek that captures no name: the body's `<steptml:invoke name=` starts each call.) DeepSeek's
      // header may stand before the invoke, its name too (vLLM `tests/tool_parsers/test_step3_tool_parser.py`:
      // `<｜tool_call_begin｜>function<｜tool_sep｜>edit_file\n<steptml:invoke name="edit_file">`).
      seq(
        ws,
        peek(
          seq(
            opt(lit(STEP3_CALL_BEGIN)),
            ws,
            opt(seq(lit("function<｜tool_sep｜>"), opt(word("ident", 256)))),
            ws,
            lit("<steptml:invoke"),
          ),
        ),
      ),
      tags(step3Entries, closers("<｜tool_calls_end｜>")),
    ),
    // Its per-call marker on its own, decided the same way.
    opener(
      [STEP3_CALL_BEGIN],
      peek(STEP3_INVOKE),
      bareTags(
        [
          call(STEP3_CALL_BEGIN, STEP3_INVOKE),
          ...structure("<steptml:parameter", "</steptml:invoke>"),
          ...callEnds("<｜tool_call_end｜>"),
        ],
        ["<｜tool_calls_end｜>"],
      ),
      { bodyAt: 0, opening: false },
    ),
    // Step3's invoke without any of DeepSeek's tokens (its own namespace: not Anthropic XML).
    opener(
      ['<steptml:invoke name="'],
      INVOKE_CONFIRMED,
      bareTags(step3Entries, ["<｜tool_call_end｜>", "<｜tool_calls_end｜>"]),
      {
        gate: true,
        opening: false,
        unoffered: seq(
          to("</steptml:invoke>"),
          ws,
          alt(lit("<｜tool_call_end｜>"), lit("<｜tool_calls_end｜>")),
        ),
      },
    ),
  ],
  "kimi-k2": [
    // Kimi K2, plural and singular section markers; a lone per-call marker too.
    opener(
      ["<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"],
      seq(ws, peek(lit("<|tool_call_begin|>"))),
      tags(kimiEntries, closers(...KIMI_SECTION_END)),
    ),
    // A lone per-call marker is not the envelope (FORMATS.md: the envelope is the section
    // marker): `opening: false`, and the orphan section closer sets `closing`.
    opener(
      ["<|tool_call_begin|>"],
      peek(seq(ws, opt(lit("functions.")), word("ident", 256), lit(":"))),
      bareTags(kimiEntries, KIMI_SECTION_END),
      { bodyAt: 0, opening: false },
    ),
    // Before DeepSeek's tokens: DeepSeek's ASCII `|`/`_` spelling writes the same `<|tool_call_begin|>`.
    token("open", ["<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"], KIMI_SLOT),
    token("call", ["<|tool_call_begin|>", "<|tool_call_argument_begin|>"], KIMI_SLOT),
    token("close", ["<|tool_call_end|>", ...KIMI_SECTION_END]),
  ],
  "deepseek-v3": [
    // DeepSeek V3/R1/V3.1, every spelling; also with the per-call markers missing
    // (`<｜tool▁calls▁begin｜>NAME<｜tool▁sep｜>…`, or the header right after the envelope).
    opener(DS_CALLS_BEGIN, seq(ws, peek(alt(...DS_CALL_BEGIN.map(lit)))), deepseekBody),
    opener(DS_CALLS_BEGIN, seq(ws, peek(DS_CALL_NAME)), deepseekBody),
    // A per-call marker without the envelope.
    opener(DS_CALL_BEGIN, peek(DS_CALL_NAME), bareTags(deepseekEntries, DS_CALLS_END), {
      bodyAt: 0,
      opening: false,
    }),
    // `function<｜tool▁sep｜>NAME` with neither the envelope nor the per-call marker.
    opener(["function<"], DS_FUNCTION_SEP, bareTags(deepseekEntries, DS_CALLS_END), {
      opening: false,
    }),
    token("open", DS_CALLS_BEGIN, DS_SLOT),
    token("call", [...DS_CALL_BEGIN, ...DS_SEP], DS_SLOT),
    token("close", [...DS_CALL_END, ...DS_CALLS_END]),
  ],
  "deepseek-dsml": [
    // DeepSeek V3.2 / V4 DSML, also with its envelope's `>` drifted.
    opener(DSML_OPEN, seq(ws, INVOKE_AHEAD), dsmlBody),
    opener(DSML_OPEN_DRIFT, seq(ws, opt(lit(">")), ws, INVOKE_AHEAD), dsmlBody),
    // A JSON payload in the envelope, fenced or not (see dsmlJson).
    opener(DSML_OPEN, DSML_JSON_CALLS, dsmlJson("keys")),
    opener(DSML_OPEN, DSML_NAMED_PAYLOAD, dsmlJson("none"), { structured: true }),
    opener(DSML_OPEN_DRIFT, seq(ws, lit(">"), DSML_JSON_CALLS), dsmlJson("keys")),
    opener(DSML_OPEN_DRIFT, seq(ws, lit(">"), DSML_NAMED_PAYLOAD), dsmlJson("none"), { structured: true }),
    // Without its envelope: the DSML token is a special token, so prose never holds it.
    opener(DSML_INVOKE, seq(INVOKE_NAME, lit(">")), bareTags(dsmlEntries, DSML_INVOKE_TAILS), {
      opening: false,
    }),
    opener(DSML_PARAMETER, seq(ws, lit("name")), dsmlParameterBody, { opening: false }),
    opener(
      ["<function><name>"],
      // (Or another such call, then the closer: `envelopeAfter`.)
      seq(FUNCTION_NAME_TAG, peek(envelopeAfter("</function>", lit("<function><name>"), DSML_CLOSE))),
      dsmlFunctionBody,
      { opening: false },
    ),
    // Its tags alone, closers too: a DSML token is never prose. An invoke counts once its `name=`
    // shows (its prefix alone is as likely a stream cut off).
    token("open", DSML_OPEN, seq(ws, name("ident"))),
    token("open", DSML_OPEN_DRIFT, seq(ws, name("ident")), seq(ws, lit(">"))),
    token("call", DSML_INVOKE, INVOKE_NAME, peek(seq(ws, lit("name"), ws, lit("=")))),
    token("call", DSML_PARAMETER),
    token(
      "close",
      DSML.flatMap((d) => [...DSML_ENVELOPES, "invoke", "parameter"].map((tag) => `</${d}${tag}>`)),
    ),
  ],
  harmony: [
    // Harmony: a message addressed to a function, with or without special tokens.
    opener(
      ["<|start|>"],
      seq(
        ws,
        lit("assistant"),
        alt(
          seq(ws, HARMONY_RECIPIENT),
          seq(lit("<|channel|>"), ws, word("letters"), ws, HARMONY_AFTER_CHANNEL),
        ),
      ),
      harmonyBody,
      { endsAnalysis: true },
    ),
    opener(["<|channel|>"], seq(ws, word("letters"), ws, HARMONY_AFTER_CHANNEL), harmonyBody, {
      endsAnalysis: true,
    }),
    // A commentary message whose recipient was lost, its body a call's JSON arguments (gpt-oss-120B
    // via trtllm-serve, NVIDIA/TensorRT-LLM#9256: `<|channel|>commentary<|message|>{"path": "/", …}<|end|>`):
    // a call naming no tool, withheld with its tokens. (A preamble in prose is no call: shown.)
    opener(
      ["<|start|>"],
      seq(ws, lit("assistant"), ws, lit("<|channel|>"), COMMENTARY_ARGS),
      COMMENTARY_BODY,
      {
        endsAnalysis: true,
      },
    ),
    opener(["<|channel|>"], COMMENTARY_ARGS, COMMENTARY_BODY, { endsAnalysis: true }),
    // A bare recipient (special tokens stripped). Inside `<|channel|>analysis` text it is part of the
    // reasoning (a mention or a rehearsal), not a new message.
    opener(
      ["to=functions."],
      // Also the role header without its `<|start|>assistant` (llama.cpp tests/chat:
      // ` to=functions.NAME<|channel|>commentary <|constrain|>json<|message|>{…}`).
      seq(name("ident"), HARMONY_RECIPIENT_TAIL),
      strippedHarmonyBody,
    ),
    // Harmony's call end after a payload the JSON reader stops short of (`<|message|>foo<|call|>`).
    token("close", ["<|call|>"]),
    // The final answer's header, with or without its role, and its end (llama.cpp's gpt-oss tests).
    // (Also with the space LLM-jp-4.1 writes after each special token.)
    token("frame", [
      ...["", " "].flatMap((sp) => [
        `<|start|>${sp}assistant<|channel|>${sp}final<|message|>`,
        `<|channel|>${sp}final<|message|>`,
      ]),
      "<|return|>",
    ]),
  ],
  "minimax-m2": [
    // MiniMax M2.
    opener(
      ["<minimax:tool_call>"],
      seq(ws, peek(lit("<invoke"))),
      tags(
        // Its name in single quotes too (Ollama `model/parsers/minimaxm2_test.go`: `<invoke name='get_weather'>`).
        [call('<invoke name="', QUOTED_NAME), call("<invoke name='", SINGLE_QUOTED_NAME)],
        structure("<parameter name=", "<param name="),
        callEnds("</invoke>"),
        closers("</minimax:tool_call>"),
      ),
    ),
    // An envelope with no call in it: its closer, a tag no lone token row reads, goes with it.
    token("empty", ["<minimax:tool_call>"], undefined, seq(ws, lit("</minimax:tool_call>"))),
    token("open", ["<minimax:tool_call>"]),
  ],
  "minimax-m3": [
    // MiniMax M3: every tag carries the namespace token `]<]minimax[>[`.
    opener(
      [`${NS}<tool_call>`],
      seq(ws, peek(lit(`${NS}<invoke`))),
      tags(m3Entries, closers(`${NS}</tool_call>`)),
    ),
    // Without its opening (L27: the namespace token is a special token; prose never holds it).
    opener([M3_INVOKE], seq(QUOTED_NAME, ws, lit(">")), bareTags(m3Entries, [`${NS}</tool_call>`]), {
      opening: false,
    }),
    // Its tags alone: the namespace token is never prose.
    token("open", [`${NS}<tool_call>`]),
    token("call", [M3_INVOKE], QUOTED_NAME),
    token("close", [`${NS}</tool_call>`, `${NS}</invoke>`]),
    // Its reasoning closer alone: M3 may start an answer with it, or close a block its chat template
    // opened (vLLM's `minimax_m3` reasoning parser drops it).
    token("frame", ["</mm:think>"]),
  ],
  granite: [
    // Granite 3.0 `<|tool_call|>[…]` and granite-20b-fc (`<function_call>` is Hermes above).
    opener(["<|tool_call|>"], JSON_ANY, json("keys")),
    // Granite 3.3 and 4.0 H-Small write bare Python calls, one a line (vLLM `granite_pythonic`,
    // `tests/tool_parsers/test_granite_pythonic_tool_parser.py`): at the answer's start or a line's,
    // only an offered tool's name, and only a call that is its whole line (PY_AFTER), so prose
    // that starts with one (`read_file(path) reads it.`) is shown.
    ...(["anchor", "line"] as const).map((where) =>
      opener([...NAME_STARTS], PY_BARE_CALL, PY_BARE_BODY, {
        where,
        opening: false,
        gate: true,
        bareName: true,
        bodyAt: 0,
      }),
    ),
    token("open", ["<|tool_call|>"]),
  ],
  // FunctionGemma: `call:NAME{…}`.
  "function-gemma": gemmaCalls("<start_function_call>", "<end_function_call>"),
  // Gemma 4: FunctionGemma's `call:NAME{…}` in other tokens.
  gemma4: [
    ...gemmaCalls("<|tool_call>", "<tool_call|>"),
    // The call with its `<|tool_call>` dropped (vLLM `gemma4_utils.parse_tool_calls`' fallback tier,
    // `tests/tool_parsers/test_gemma4_regex_and_bare_calls.py`): `call:NAME{KEY:…}` at a line's start
    // or the answer's (glued to the thought channel's `<channel|>`), and `<call>NAME{…}` (the token
    // split apart). Its arguments are read as a value that ends where its braces close; only a name
    // an offered tool has, or any without tools, opening its arguments (`call:me{maybe}` is prose).
    // The orphan closer after it joins it, and confirms a name no offered tool has (a token, withheld).
    ...(["anchor", "line"] as const).map((where) =>
      opener(["call:"], GEMMA_BARE, GEMMA_BARE_BODY, { where, ...GEMMA_BARE_ROW }),
    ),
    opener(["<call>"], GEMMA_BARE, GEMMA_BARE_BODY, GEMMA_BARE_ROW),
  ],
  olmo3: [
    // Olmo 3 shares `<function_calls>` with Anthropic XML; a pythonic line decides, so it
    // goes first.
    opener(
      ["<function_calls>"],
      seq(ws, peek(seq(word("ident"), lit("(")))),
      pythonic("lines", "</function_calls>"),
    ),
  ],
  "anthropic-xml": [
    // Anthropic-style XML, `antml:` prefix or not, and a bare `<invoke name="…">`.
    opener(
      ["<function_calls>"],
      seq(ws, peek(nsLit("<invoke"))),
      nsTags(tags(anthropicEntries, closers(...FUNCTION_CALLS_END))),
      { ns: true },
    ),
    opener(
      ['<invoke name="'],
      INVOKE_CONFIRMED,
      // MiniMax M2 writes the same `<invoke name=…>` (FORMATS.md): its orphan closer says which.
      nsTags(
        bareTags(anthropicEntries, [
          ...FUNCTION_CALLS_END,
          { literal: "</minimax:tool_call>", format: "minimax-m2" },
          { literal: DOTS.close, format: "dots" },
        ]),
      ),
      {
        gate: true,
        opening: false,
        ns: true,
        // `invoke>` ends `</invoke>` under any namespace prefix (`</x:invoke>`).
        unoffered: envelopeAfter(
          "invoke>",
          nsLit("<invoke"),
          alt(nsLit("</function_calls>"), lit("</minimax:tool_call>"), lit(DOTS.close)),
        ),
      },
    ),
  ],
  "command-r": [
    // Cohere Command-R: `Action: ```json` — the fence is the envelope.
    opener(
      ["Action:"],
      seq(ws, lit("```"), opt(lit("json")), ws, peek(alt(lit("["), lit("{")))),
      json("keys", "```"),
      {
        where: "line",
      },
    ),
  ],
  "command-r7b": [
    // Command R7B / Command A.
    opener(["<|START_ACTION|>"], JSON_ANY, json("keys", "<|END_ACTION|>")),
    token("open", ["<|START_ACTION|>"]),
    token("close", ["<|END_ACTION|>"]),
    // The answer's text block and the turn's end around it (llama.cpp `common/parsers/cohere2moe.cpp`:
    // `<|START_TEXT|>…<|END_TEXT|>`, then `<|END_OF_TURN_TOKEN|>`): a server that parsed the format removes them.
    token("frame", ["<|START_TEXT|>", "<|END_TEXT|>", "<|END_OF_TURN_TOKEN|>"]),
  ],
  "seed-oss": [
    // Seed-OSS.
    opener(["<seed:tool_call>"], seq(ws, peek(FUNCTION_HEADER)), qwenBody("</seed:tool_call>")),
    token("open", ["<seed:tool_call>"]),
  ],
  internlm: [
    // InternLM 2.5 / Intern-S1.
    opener(["<|action_start|><|plugin|>"], JSON_ANY, json("keys", "<|action_end|>")),
    token("open", ["<|action_start|>"]),
    // Its plugin marker on its own (`<|action_start|><|plugin|>not json<|action_end|>`, vLLM's tests).
    token("call", ["<|plugin|>"]),
    token("close", ["<|action_end|>"]),
  ],
  "phi4-functools": [
    // Phi-4-mini / FireFunction v2. The literal includes its `[` (a rare character: the
    // scanner finds it fast); the JSON list starts there.
    opener(["functools["], peek(seq(ws, lit("{"))), json("keys"), {
      bodyAt: "functools".length,
    }),
  ],
  lfm2: [
    // LFM2: a JSON list or a pythonic one. openPangu writes the JSON list in the same tokens, or in
    // `[unused11]` … `[unused12]` where its vocabulary has no `<|tool_call_start|>` (vLLM `pangu`).
    opener(
      ["<|tool_call_start|>", ...PANGU.open],
      seq(ws, peek(seq(lit("["), ws, lit("{")))),
      json("keys", "<|tool_call_end|>", ...PANGU.close),
    ),
    opener(
      ["<|tool_call_start|>"],
      seq(ws, peek(seq(lit("["), ws, word("ident"), lit("(")))),
      pythonic("list", "<|tool_call_end|>"),
    ),
    // An empty list, or nothing, between its tokens (vLLM `tests/tool_parsers/test_lfm2_tool_parser.py`,
    // `test_empty_tool_call_block`): one envelope, its `<|tool_call_end|>` not Kimi's stray closer.
    token(
      "empty",
      ["<|tool_call_start|>"],
      undefined,
      seq(ws, opt(seq(lit("["), ws, lit("]"), ws)), lit("<|tool_call_end|>")),
    ),
    token("open", ["<|tool_call_start|>"]),
  ],
  nemotron: [
    // Nemotron v2.
    opener(["<TOOLCALL>"], JSON_ANY, json("keys", "</TOOLCALL>")),
  ],
  apertus: [
    // Apertus: `{NAME: {args}}`, the name as the key.
    opener(["<|tools_prefix|>"], JSON_ANY, json("first-key", "<|tools_suffix|>")),
    token("open", ["<|tools_prefix|>"]),
    token("close", ["<|tools_suffix|>"]),
  ],
  longcat: [
    // LongCat-Flash: Hermes JSON in its own tag (vLLM `longcat`, Ollama `longcatflash.go`).
    opener(["<longcat_tool_call>"], JSON_START, json("keys", "</longcat_tool_call>")),
  ],
  gigachat3: [
    // GigaChat 3: the role `function call`, its `<|role_sep|>`, then one call object (vLLM and SGLang
    // `gigachat3`). With special tokens stripped the object follows the role directly
    // (`function call{"name": …}`, vLLM's tests); the literal holds the `{` so prose never stops it.
    opener(["function call<|role_sep|>"], JSON_CALL_START, json("keys")),
    opener(["function call{"], peek(seq(ws, lit('"name"'))), json("keys"), {
      bodyAt: "function call".length,
    }),
  ],
  "kimi-k3": [
    // Kimi K3: `<|open|>tools<|sep|>` around `<|open|>call tool="NAME" index="1"<|sep|>` calls, or a
    // call without its section (the section tokens are special tokens: prose never holds them).
    opener(K3_SECTION, seq(ws, peek(alt(...K3_CALLS.map(lit)))), tags(k3Entries, closers(...K3_SECTION_END))),
    opener(K3_CALLS, QUOTED_NAME, bareTags(k3Entries, [...K3_SECTION_END, K3_SECTION_END_RUN]), {
      opening: false,
    }),
    token("frame", ["<|open|>response<|sep|>", "<|close|>response<|sep|>"]),
    // Its markers alone: `<|open|>` and `<|close|>` are special tokens, never prose.
    token("open", K3_SECTION),
    token("call", K3_CALLS, QUOTED_NAME),
    token("call", k3("<|open|>", "argument")),
    token("close", [
      ...K3_SECTION_END,
      ...k3("<|close|>", "call", "<|sep|>"),
      ...k3("<|close|>", "argument", "<|sep|>"),
    ]),
    token("close", [K3_SECTION_END_RUN.literal], undefined, K3_SECTION_END_RUN.pattern),
  ],
  plamo3: [
    // PLaMo 3 (vLLM `plamo3`): `<|plamo:begin_tool_requests:plamo|>` around one request a call, its name
    // and its JSON arguments each between their own begin and end tags. Not single tokens (a special
    // prefix token, the tag's name, a special suffix token), but no prose writes them.
    opener(
      [PLAMO.requests],
      seq(ws, peek(lit(PLAMO.request))),
      tags(plamoEntries, closers(PLAMO.requestsEnd)),
    ),
    opener([PLAMO.request], peek(PLAMO_NAME), bareTags(plamoEntries, [PLAMO.requestsEnd]), {
      bodyAt: 0,
      opening: false,
    }),
    token("open", [PLAMO.requests], seq(lit(PLAMO.request), PLAMO_NAME)),
    token("call", [PLAMO.request], PLAMO_NAME),
    token("call", [PLAMO.name], name("element")),
    token("call", [PLAMO.args, "<|plamo:constrain|>", "<|plamo:msg|>"]),
    token("close", [PLAMO.requestsEnd, PLAMO.requestEnd, PLAMO.nameEnd, PLAMO.argsEnd]),
    // The end of the turn.
    token("frame", ["<|plamo:tag|>"]),
  ],
  inkling: [
    // Inkling (vLLM `inkling`): typed content blocks between special tokens; a call is a
    // `{"name": …, "args": {…}}` object in an invoke block, ended as every block is.
    opener([INKLING.invoke], JSON_START, json("keys", INKLING.end)),
    token("open", [INKLING.invoke]),
    // Its message and block tokens around the answer: a server that parsed the format takes them out.
    token("frame", [...INKLING.frame, INKLING.end]),
  ],
  minicpm5: [
    // MiniCPM 5 (vLLM `minicpm5`): a call with no envelope, so only an offered tool's (after
    // Functionary's `<function name="NAME">{json}`, which shares the literal).
    opener(MINICPM_CALLS, MINICPM_CONFIRMED, bareTags(minicpmEntries, []), { gate: true, opening: false }),
    opener(MINICPM_CALLS_SQ, MINICPM_CONFIRMED_SQ, bareTags(minicpmEntries, []), {
      gate: true,
      opening: false,
    }),
  ],
  "solar-open2": [
    // Upstage Solar Open 2 (vLLM `solar_open2`): the name on the call token's line, then one
    // `<|tool_arg:start|>K<|tool_arg:value|>V<|tool_arg:end|>` an argument; one envelope a call.
    opener(
      [SOLAR.call],
      // (Or, after the name's line, the stream cut off in the next token: a truncated call.)
      seq(
        ws,
        name("element"),
        alt(
          seq(ws, peek(alt(lit(SOLAR.arg), lit(SOLAR.callEnd)))),
          seq(lit("\n"), ws, cut(SOLAR.arg, SOLAR.callEnd)),
        ),
      ),
      tags(structure(SOLAR.arg, SOLAR.value), closers(SOLAR.callEnd)),
    ),
    token("open", [SOLAR.call], name("element")),
    token("call", [SOLAR.arg, SOLAR.value]),
    token("close", [SOLAR.callEnd, SOLAR.argEnd]),
  ],
  "k2-horizon": [
    // K2 Horizon (vLLM `k2_horizon`): `<ifm|tool_calls>` around `<ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key>
    // <ifm|arg_value>V</ifm|arg_value></ifm|tool_call>` calls (an `<ifm|arg_type>` before each value in
    // its typed form), or a call object between the call tokens in its JSON form.
    opener([IFM.calls], seq(ws, peek(IFM_CALL_AHEAD)), tags(ifmEntries, closers(IFM.callsEnd))),
    opener([IFM.call], peek(IFM_NAME), bareTags(ifmEntries, [IFM.callsEnd]), { bodyAt: 0, opening: false }),
    opener([IFM.calls], seq(ws, lit(IFM.call), JSON_START), IFM_JSON),
    // (In the JSON form the call tokens are each call's envelope.)
    opener([IFM.call], JSON_START, IFM_JSON),
    token("open", [IFM.calls]),
    token("call", [IFM.call, IFM.argKey, IFM.argType, IFM.argValue], name("ident")),
    token("close", [IFM.callsEnd, IFM.callEnd, "</ifm|arg_key>", "</ifm|arg_type>", "</ifm|arg_value>"]),
  ],
  lmstudio: [
    // LM Studio's own convention, which its system prompt asks of a model with no native tool format:
    // a Hermes-style call object between `[TOOL_REQUEST]` and `[END_TOOL_REQUEST]`. The markers are
    // plain text the prompt asks for, not special tokens: like `<tool_call>`, one alone is prose's
    // (no token rows), and a stray closer right after a call joins it.
    opener(["[TOOL_REQUEST]"], JSON_START, json("keys", ...LMSTUDIO_END)),
    // The name before its arguments, and the closer spelled `[TOOL_REQUEST_END]` (Gemma 3 through LM
    // Studio: `[TOOL_REQUEST]⏎list_directory {"path": "/home"}⏎[TOOL_REQUEST_END]`, vybestack/llxprt-code's
    // `GemmaToolCallParser` tests).
    opener(["[TOOL_REQUEST]"], seq(ws, name("ident"), ws, peek(lit("{"))), json("none", ...LMSTUDIO_END), {
      structured: true,
    }),
    // The same request with the name in brackets on a line of its own and its arguments on the next
    // (`[NAME]⏎{…}⏎[END_TOOL_REQUEST]`, openclaw/openclaw#66178): `[word]` is prose's too, so only an
    // offered tool's name, or any name once the closer token ends its arguments. (At a line start
    // only: a `[` in the middle of prose, a Markdown link's, is not tried.)
    // (Its own markers are not names: a line-start `[TOOL_REQUEST]{…}` is the row above.)
    opener(
      ["["],
      seq(
        not(alt(lit("TOOL_REQUEST"), lit("END_TOOL_REQUEST]"))),
        BRACKETED_NAME,
        lit("]"),
        ws,
        peek(lit("{")),
      ),
      json("none", ...LMSTUDIO_END),
      {
        where: "line",
        opening: false,
        gate: true,
        structured: true,
        unoffered: to("[END_TOOL_REQUEST]"),
      },
    ),
  ],
  dots: [
    // dots (vLLM and SGLang `dots`): Anthropic-style invokes, or one call object, in `<dots_function_call>`.
    // The invoke's name as the peers read it (`name\s*=\s*…`, quoted or not: INVOKE_NAME's spellings).
    // (A peek that captures no name: the body's `<invoke` starts each call.)
    opener(
      DOTS.opens,
      seq(ws, peek(seq(lit("<invoke"), ws, lit("name")))),
      tags(dotsEntries, closers(DOTS.close)),
    ),
    opener(DOTS.opens, JSON_START, json("keys", DOTS.close)),
    // Its opener alone: real leaks hold it before payloads no row reads (`<dots_function_call>
    // <dots_function_call> <built-in> <parameter name="command" string="true">date</parameter> </built-in>`,
    // a public terminal agent's `TestBTWExplainsUnexecutedToolCalls`, "screenshot" case), and prose has no
    // use for it: withheld as a token. (Its closer alone is not: a `</d…` token would stop the prose scan
    // at every `</div>`; after a call it joins the call.)
    token("open", DOTS.opens),
  ],
  cwm: [
    // CWM (vLLM `cwm`): `<tool: LABEL>`, the tool's name as the body's first word, then its arguments
    // as text (or JSON) up to `</tool>`. The label is informational (`function`).
    // The tag on a line of its own, and a name only an offered tool's or one whose `</tool>` follows:
    // prose that names the tag (`Use <tool: function> then…`) is text.
    opener(
      ["<tool:"],
      seq(
        ws,
        word("ident", 64),
        ws,
        lit(">"),
        alt(lit("\n"), lit("\r\n")),
        ws,
        name("ident"),
        peek(alt(lit(" "), lit("\t"), lit("\n"), lit("\r\n"), lit("</tool>"))),
      ),
      tags(closers("</tool>")),
      { structured: true, gate: true, unoffered: to("</tool>") },
    ),
  ],
  rwkv: [
    // RWKV (vLLM `rwkv`): a bold `**Tool Call:**` line, then the call object in a ```` ```json ```` fence,
    // which is the envelope (as Command-R's `Action:`): only a call object (`"name"` first) after it.
    opener(["**Tool Call:**"], seq(ws, lit("```"), opt(lit("json")), JSON_CALL_START), json("keys", "```"), {
      where: "line",
    }),
  ],
  "cline-xml": [
    // Cline / Roo-Code prompt XML: `<TOOLNAME>` … `</TOOLNAME>` for an offered tool, opt-in.
    opener([`<${TOOL}>`], EMPTY, tags(structure("<"), closers(`</${TOOL}>`)), {
      perTool: true,
      optIn: true,
    }),
  ],
}

/**
 * The spellings of a format's tokens besides the ones its rows write (ARCHITECTURE.md#policy: a
 * format's tokens are a family). The spellings a family's tokenizers use for the same token are
 * written into its rows' literals where they are few (DeepSeek's bars and joins, DSML's bars); a
 * rule that no list can hold is data here.
 */
export interface Family {
  /**
   * Every `<tag>` and `</tag>` of the format (in its literals, its confirms and its bodies) may
   * carry its vocabulary's suffix before the `>`: Hunyuan HY v4 names its special tokens
   * `<tool_call:opensource>`, `</arg_value:opensource>` (vLLM `hy_v4_tool_parser`, which reads the
   * suffix from the tokenizer's vocabulary: any text after the `:`).
   */
  readonly suffix: boolean
}

/** The formats whose tokens have spellings a rule describes (see {@link Family}). */
export const FAMILIES: { readonly [F in FormatId]?: Family } = {
  hunyuan: { suffix: true },
}

/** `:opensource`: a vocabulary suffix, up to the tag's `>` (which it leaves). */
const SUFFIX: Pattern = seq(lit(":"), word("element", 32))
/** A tag literal the suffix rule applies to: `<name>` or `</name>`. */
const TAG = /^<\/?[A-Za-z_][\w-]*>$/

/** Every tag literal of `p` with an optional suffix before its `>` (one rewrite per pattern). */
function suffixed(p: Pattern, seen = new Map<Pattern, Pattern>()): Pattern {
  const done = seen.get(p)
  if (done !== undefined) return done
  let out = p
  switch (p.kind) {
    case "lit":
      if (TAG.test(p.text)) out = seq(lit(p.text.slice(0, -1)), opt(SUFFIX), lit(">"))
      break
    case "seq":
      out = seq(...p.items.map((item) => suffixed(item, seen)))
      break
    case "alt":
      out = alt(...p.items.map((item) => suffixed(item, seen)))
      break
    case "opt":
      out = opt(suffixed(p.item, seen))
      break
    case "peek":
      out = peek(suffixed(p.item, seen))
      break
    case "not":
      out = not(suffixed(p.item, seen))
      break
    case "cut-in":
      out = cutIn(suffixed(p.item, seen))
      break
    default:
      break
  }
  seen.set(p, out)
  return out
}

/**
 * A suffixed tag literal, matched as `<name:` (the literal tries hold literals only), and the
 * pattern that reads the rest of the suffix, its `>`, then `then`.
 */
function suffixedLiteral(literal: string, then: Pattern | undefined): { literal: string; pattern: Pattern } {
  const rest = seq(word("element", 32), lit(">"))
  return { literal: `${literal.slice(0, -1)}:`, pattern: then === undefined ? rest : seq(rest, then) }
}

/** A body of a suffix family: each tag literal also spelled with a suffix. */
function suffixedBody(body: BodySpec): BodySpec {
  if (body.kind !== "tags") return body
  const entries = body.entries.flatMap((e): BodyEntry[] => {
    const own = e.pattern === undefined ? e : { ...e, pattern: suffixed(e.pattern) }
    if (!TAG.test(e.literal)) return [own]
    return [own, { role: e.role, ...suffixedLiteral(e.literal, own.pattern) }]
  })
  if (body.bare === undefined) return { ...body, entries }
  const tails = body.bare.tails.flatMap((t): BareTail[] => {
    const own = t.pattern === undefined ? t : { ...t, pattern: suffixed(t.pattern) }
    if (!TAG.test(t.literal)) return [own]
    return [own, { ...t, ...suffixedLiteral(t.literal, own.pattern) }]
  })
  return { ...body, entries, bare: { tails } }
}

/**
 * A row of a format with a {@link Family}: the row as written, with its confirm and body reading
 * the family's spellings, then (if any of its literals is a tag) the row for its suffixed literals.
 */
function familyRows(row: FormatRow, family: Family | undefined): FormatRow[] {
  if (family === undefined || !family.suffix) return row.familyOnly ? [] : [row]
  const body = suffixedBody(row.body)
  const confirm = suffixed(row.confirm)
  const own: FormatRow = { ...row, confirm, body }
  const tagged = row.literals.filter((literal) => TAG.test(literal))
  // A body that starts past the literal (`functools[`) would count from the plain spelling's length.
  if (tagged.length === 0 || (row.bodyAt ?? 0) !== 0) return row.familyOnly ? [] : [own]
  const derived = tagged.map((literal) => suffixedLiteral(literal, confirm))
  const spelled: FormatRow = { ...own, literals: derived.map((d) => d.literal), confirm: derived[0]!.pattern }
  return row.familyOnly ? [spelled] : [own, spelled]
}

/**
 * A suffix family's spelling of every tag of its format, as a lone token (ARCHITECTURE.md#policy):
 * `<tool_calls:opensource>` is a special token of HY v4's vocabulary, never prose, so alone it is
 * withheld as its plain tag's role says: a call's own tag (and the name slot its body reads after
 * it) or a parameter tag is a `call` token, an opening literal `open`, any `</…>` `close`. The
 * plain tags stay text alone (prose names `<tool_call>`).
 */
function familyTokens(rows: readonly FormatRow[], family: Family | undefined): FormatRow[] {
  if (family === undefined || !family.suffix) return []
  const roles = new Map<string, { role: TokenRole; slot: Pattern | undefined }>()
  const note = (literal: string, role: TokenRole, slot?: Pattern): void => {
    if (!TAG.test(literal) || roles.has(literal)) return
    roles.set(literal, { role: literal.startsWith("</") ? "close" : role, slot })
  }
  for (const row of rows) {
    if (row.body.kind !== "tags") continue
    for (const e of row.body.entries) note(e.literal, "call", e.role === "call" ? e.pattern : undefined)
    for (const t of row.body.bare?.tails ?? []) note(t.literal, "close")
  }
  for (const row of rows) for (const literal of row.literals) note(literal, row.opening ? "open" : "call")
  // Each tag's closing tag too (`</arg_key:…>`, which no body needs to read).
  for (const literal of [...roles.keys()])
    if (!literal.startsWith("</")) note(`</${literal.slice(1)}`, "close")
  return [...roles].map(([literal, { role, slot }]) => {
    const spelled = suffixedLiteral(literal, undefined)
    return token(role, [spelled.literal], slot === undefined ? undefined : suffixed(slot), spelled.pattern)
  })
}

/**
 * A row with its format, written out field by field: every row is then one object literal of one
 * shape with all its fields in the object (a `{ format, ...row }` copy keeps most of them in a
 * separate backing store: one more load for each field the matcher reads per candidate).
 */
const withFormat = (format: FormatId, row: FormatRow): OpenerRow => ({
  format,
  literals: row.literals,
  confirm: row.confirm,
  body: row.body,
  where: row.where,
  opening: row.opening,
  gate: row.gate,
  unoffered: row.unoffered,
  bodyAt: row.bodyAt,
  structured: row.structured,
  endsAnalysis: row.endsAnalysis,
  glued: row.glued,
  bareName: row.bareName,
  follows: row.follows,
  toolName: row.toolName,
  ns: row.ns,
  token: row.token,
  perTool: row.perTool,
  optIn: row.optIn,
  familyOnly: row.familyOnly,
  offeredOnly: row.offeredOnly,
  detached: row.detached,
})

/** Every row with its format, in priority order. */
const ROWS: readonly OpenerRow[] =
  // `Object.keys` is typed `string[]`; the keys of `FORMAT_ROWS` are exactly the format ids.
  (Object.keys(FORMAT_ROWS) as FormatId[]).flatMap((format) =>
    [
      ...FORMAT_ROWS[format].flatMap((row) => familyRows(row, FAMILIES[format])),
      ...familyTokens(FORMAT_ROWS[format], FAMILIES[format]),
    ].map((row) => withFormat(format, row)),
  )

/** Markup openers, in priority order. */
export const OPENER_ROWS: readonly OpenerRow[] = ROWS.filter((row) => row.token === undefined)

/** The special tokens of every family, in priority order, after every row that reads a call behind them. */
export const TOKEN_ROWS: readonly OpenerRow[] = ROWS.filter((row) => row.token !== undefined)

/** Reasoning blocks. Markup inside them is `inReasoning`. */
export const REASONING_ROWS: readonly ReasoningRow[] = [
  // `<think>` and `<thinking>` are tags prose names ("Use <think> for reasoning."): they open the
  // reasoning block only where it opens, at the start of the answer. Special tokens open it anywhere.
  {
    formats: undefined,
    literals: ["<think>"],
    where: "anchor",
    confirm: EMPTY,
    close: [{ literal: "</think>", peek: false }],
    harmony: false,
    // Qwen3-Thinking-2507 and Qwen3.5, MiniMax-M2, HyperCLOVAX-SEED-Think, Step3, DeepSeek-R1: their
    // templates end the prompt with `<think>` (vLLM's reasoning parsers and their tests).
    openedInPrompt: true,
    // A JSON call list glued to the closer (xLAM's and HyperCLOVAX's answer shape, vLLM's
    // `xlam` and `hyperclovax` tool parsers): `{` alone stays prose ("close it with </think>{…}").
    answerOnLine: seq(ws, lit("["), ws, lit("{"), CALL_KEYS),
  },
  {
    // Hunyuan HY v4's suffixed token (its family, see FAMILIES): a special token, never prose.
    formats: ["hunyuan"],
    literals: [suffixedLiteral("<think>", undefined).literal],
    where: "anywhere",
    confirm: suffixedLiteral("<think>", undefined).pattern,
    close: [
      { literal: "</think>", peek: false },
      {
        literal: suffixedLiteral("</think>", undefined).literal,
        peek: false,
        pattern: suffixedLiteral("</think>", undefined).pattern,
      },
    ],
    harmony: false,
  },
  {
    // MiniMax M3's own tokens (vLLM `minimax_m3` reasoning parser: complete vocabulary tokens).
    formats: ["minimax-m3"],
    literals: ["<mm:think>"],
    where: "anywhere",
    confirm: EMPTY,
    close: [{ literal: "</mm:think>", peek: false }],
    harmony: false,
  },
  {
    // K2 Horizon's three reasoning tokens (SGLang `k2_v3_detector.py`: `<ifm|think>`, `<ifm|think_fast>`, `<ifm|think_faster>`).
    formats: ["k2-horizon"],
    literals: ["<ifm|think>", "<ifm|think_fast>", "<ifm|think_faster>"],
    where: "anywhere",
    confirm: EMPTY,
    close: [
      { literal: "</ifm|think>", peek: false },
      { literal: "</ifm|think_fast>", peek: false },
      { literal: "</ifm|think_faster>", peek: false },
    ],
    harmony: false,
  },
  {
    formats: ["solar-open2"],
    literals: ["<|think:start|>"],
    where: "anywhere",
    confirm: EMPTY,
    close: [{ literal: "<|think:end|>", peek: false }],
    harmony: false,
  },
  {
    formats: ["plamo3"],
    literals: ["<|plamo:begin_think:plamo|>"],
    where: "anywhere",
    confirm: EMPTY,
    close: [{ literal: "<|plamo:end_think:plamo|>", peek: false }],
    harmony: false,
  },
  {
    // A thinking block ends as every Inkling block does, or where the next message starts.
    formats: ["inkling"],
    literals: ["<|content_thinking|>"],
    where: "anywhere",
    confirm: EMPTY,
    close: [
      { literal: INKLING.end, peek: false },
      { literal: "<|content_model_end_sampling|>", peek: false },
      { literal: "<|message_model|>", peek: true },
    ],
    harmony: false,
  },
  {
    formats: ["mistral"],
    literals: ["[THINK]"],
    where: "anywhere",
    confirm: EMPTY,
    close: [{ literal: "[/THINK]", peek: false }],
    harmony: false,
    openedInPrompt: true,
  },
  {
    formats: ["seed-oss"],
    literals: ["<seed:think>"],
    where: "anywhere",
    confirm: EMPTY,
    close: [{ literal: "</seed:think>", peek: false }],
    harmony: false,
    openedInPrompt: true,
  },
  {
    formats: ["apriel", "anthropic-xml"],
    literals: ["<thinking>"],
    where: "anchor",
    confirm: EMPTY,
    close: [{ literal: "</thinking>", peek: false }],
    harmony: false,
  },
  {
    // Poolside Laguna (GLM's calls): its reasoning tag, a tag prose names too, so at the start only
    // (Ollama `model/parsers/laguna_test.go`: `<thought>Need current weather.</thought>⏎<tool_call>…`).
    formats: ["glm"],
    literals: ["<thought>"],
    where: "anchor",
    confirm: EMPTY,
    close: [{ literal: "</thought>", peek: false }],
    harmony: false,
  },
  {
    formats: ["kimi-k3"],
    literals: ["<|open|>think<|sep|>"],
    where: "anywhere",
    confirm: EMPTY,
    close: [{ literal: "<|close|>think<|sep|>", peek: false }],
    harmony: false,
  },
  {
    formats: ["command-r7b"],
    literals: ["<|START_THINKING|>"],
    where: "anywhere",
    confirm: EMPTY,
    close: [{ literal: "<|END_THINKING|>", peek: false }],
    harmony: false,
  },
  {
    formats: ["gemma4"],
    literals: ["<|channel>"],
    where: "anywhere",
    confirm: lit("thought"),
    close: [{ literal: "<channel|>", peek: false }],
    harmony: false,
  },
  {
    formats: ["harmony"],
    literals: ["<|channel|>"],
    where: "anywhere",
    // (`<|channel|> analysis<|message|>`: LLM-jp-4.1's space after the token.)
    confirm: seq(ws, lit("analysis<|message|>")),
    close: [
      { literal: "<|end|>", peek: false },
      { literal: "<|start|>", peek: true },
      { literal: "<|channel|>", peek: true },
    ],
    harmony: true,
  },
  // Harmony with its special tokens stripped: `analysis…assistantfinal…` (FORMATS.md).
  {
    formats: ["harmony"],
    literals: ["analysis"],
    where: "anchor",
    confirm: not(alt(lit(" "), lit("\n"), lit("\t"))),
    close: [
      { literal: "assistantfinal", peek: false },
      { literal: "assistantcommentary", peek: false },
      // `<|start|>assistant to=functions.NAME` stripped: a new message addressed to a function.
      { literal: "assistant to=functions.", peek: true },
    ],
    harmony: true,
  },
]
