/**
 * The tool-call text formats of FORMATS.md as data: one row per format id, each a small
 * renderer from calls to tagged text segments. The tags say which segments are envelope markers
 * (so a variant can drop them) and which are parameter values (so a truncation can cut inside
 * one). Keyed by `@tool-rescue/detector`'s format ids: a format added there needs its row here
 * before anything type-checks (FORMATS.md, "Adding a format").
 */
import { FORMAT_IDS, type FormatId } from "@tool-rescue/detector"

/** An argument value: strings are the interesting case; numbers and booleans exercise typed forms. */
export type ArgValue = string | number | boolean

/** A call to render. */
export interface CallSpec {
  readonly name: string
  readonly args: ReadonlyArray<readonly [string, ArgValue]>
}

/** A piece of rendered text: `open`/`close` are envelope markers, `value` is (part of) a parameter value. */
export interface Segment {
  readonly text: string
  readonly role: "open" | "close" | "value" | "syntax"
}

/** A rendered group of calls: `head`/`tail` hold a shared envelope, each call holds its own markers. */
export interface Rendered {
  readonly head: readonly Segment[]
  readonly calls: ReadonlyArray<readonly Segment[]>
  readonly separator: string
  readonly tail: readonly Segment[]
}

/** One row of the catalogue. */
export interface FormatSpec {
  readonly id: FormatId
  /** Bare JSON or a pythonic list: evidence only at the start of a response. */
  readonly startAnchored: boolean
  /** Tool names must be identifiers (pythonic call syntax). */
  readonly identifierNames: boolean
  /** Number of marker variants (`style % styles` picks one; 0 is canonical). */
  readonly styles: number
  /** Whether the style has a closing envelope marker at all. */
  readonly hasClosing: (style: number) => boolean
  /** Whether the inner call header survives without the opening marker (so `missing-opening` and `bare` make sense). */
  readonly innerHeader: (style: number) => boolean
  readonly render: (calls: readonly CallSpec[], style: number) => Rendered
  /**
   * The tool name is part of the opening marker and is the only evidence (`<NAME>`,
   * `<function=NAME>{…}`, `>>>NAME`): a detector may leave such text with an unknown name as
   * text, so unknown names are not generated for it.
   */
  readonly nameGated?: boolean
  /**
   * The closing marker is a bare `]`: FORMATS.md lists it as the closing envelope, yet it is also
   * plain JSON syntax, so whether a detector counts it as a marker is left open.
   */
  readonly bracketClosing?: (style: number) => boolean
  /** Other ids a detector may report for this style and variant (same text shape). */
  readonly aliases?: (style: number, bareOpening: boolean) => readonly FormatId[]
}

const open = (text: string): Segment => ({ text, role: "open" })
const close = (text: string): Segment => ({ text, role: "close" })
const syntax = (text: string): Segment => ({ text, role: "syntax" })
const value = (text: string): Segment => ({ text, role: "value" })

const perCall = (calls: ReadonlyArray<readonly Segment[]>, separator: string): Rendered => ({
  head: [],
  calls,
  separator,
  tail: [],
})

/** A JSON string literal as segments: the quotes are syntax, the escaped content is a value. */
function jsonString(text: string): Segment[] {
  return [syntax('"'), value(JSON.stringify(text).slice(1, -1)), syntax('"')]
}

/** A JSON object of arguments; string values are value segments. `spaced` uses `": "` and `", "`. */
function jsonArgs(args: CallSpec["args"], spaced: boolean): Segment[] {
  const colon = spaced ? ": " : ":"
  const comma = spaced ? ", " : ","
  const out: Segment[] = [syntax("{")]
  args.forEach(([key, arg], i) => {
    if (i > 0) out.push(syntax(comma))
    out.push(syntax(`${JSON.stringify(key)}${colon}`))
    if (typeof arg === "string") out.push(...jsonString(arg))
    else out.push(value(JSON.stringify(arg)))
  })
  out.push(syntax("}"))
  return out
}

/** `{"name": N, "<argsKey>": {…}}` (or the short `{N: {…}}` form). */
function jsonCall(call: CallSpec, argsKey: string, spaced: boolean, extra: Segment[] = []): Segment[] {
  const colon = spaced ? ": " : ":"
  const comma = spaced ? ", " : ","
  return [
    syntax("{"),
    ...extra,
    syntax(`"name"${colon}${JSON.stringify(call.name)}${comma}"${argsKey}"${colon}`),
    ...jsonArgs(call.args, spaced),
    syntax("}"),
  ]
}

/** Python keyword arguments, `k="v", n=1` (JSON string escapes are valid Python escapes for our values). */
function pythonArgs(args: CallSpec["args"]): Segment[] {
  const out: Segment[] = []
  args.forEach(([key, arg], i) => {
    if (i > 0) out.push(syntax(", "))
    out.push(syntax(`${key}=`))
    if (typeof arg === "string") out.push(...jsonString(arg))
    else out.push(value(typeof arg === "boolean" ? (arg ? "True" : "False") : String(arg)))
  })
  return out
}

/** A Python string literal in single quotes, as `repr` writes one. */
const pythonString = (text: string): string =>
  `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`

/** A Python dict of the arguments, `{'k': 'v', 'n': 1}`. */
function pythonDict(args: CallSpec["args"]): Segment[] {
  const out: Segment[] = [syntax("{")]
  args.forEach(([key, arg], i) => {
    if (i > 0) out.push(syntax(", "))
    out.push(syntax(`${pythonString(key)}: `))
    if (typeof arg === "string") out.push(value(pythonString(arg)))
    else out.push(value(typeof arg === "boolean" ? (arg ? "True" : "False") : String(arg)))
  })
  out.push(syntax("}"))
  return out
}

const pythonCall = (call: CallSpec): Segment[] => [
  syntax(`${call.name}(`),
  ...pythonArgs(call.args),
  syntax(")"),
]

/** Raw-text argument value (XML-ish formats). */
const raw = (arg: ArgValue): Segment => value(String(arg))

/** Gemma's `{k:<q>v<q>,n:42}` argument object with the format's string quote. */
function gemmaArgs(args: CallSpec["args"], quote: string): Segment[] {
  const out: Segment[] = [syntax("{")]
  args.forEach(([key, arg], i) => {
    if (i > 0) out.push(syntax(","))
    out.push(syntax(`${key}:`))
    if (typeof arg === "string") out.push(syntax(quote), value(arg), syntax(quote))
    else out.push(value(String(arg)))
  })
  out.push(syntax("}"))
  return out
}

/** `<TAG name="K">V</TAG>` parameters (MiniMax M2, Anthropic XML, Step3, DSML). */
function namedParams(
  args: CallSpec["args"],
  tag: string,
  endTag: string,
  nl: string,
  typed = false,
): Segment[] {
  return args.flatMap(([key, arg]) => {
    const attr = typed ? ` string="${typeof arg === "string"}"` : ""
    return [syntax(`<${tag} name="${key}"${attr}>`), raw(arg), syntax(`</${endTag}>${nl}`)]
  })
}

// Special tokens, spelled out once (U+FF5C FULLWIDTH VERTICAL LINE, U+2581 LOWER ONE EIGHTH BLOCK).
const DS = {
  callsBegin: ["<｜tool▁calls▁begin｜>", "<｜tool calls begin｜>", "<｜tool▁calls｜>"],
  callsEnd: "<｜tool▁calls▁end｜>",
  callBegin: "<｜tool▁call▁begin｜>",
  sep: "<｜tool▁sep｜>",
  callEnd: "<｜tool▁call▁end｜>",
}
const STEP3 = {
  callsBegin: "<｜tool_calls_begin｜>",
  callsEnd: "<｜tool_calls_end｜>",
  callBegin: "<｜tool_call_begin｜>",
  sep: "<｜tool_sep｜>",
  callEnd: "<｜tool_call_end｜>",
}
const MM3 = "]<]minimax[>["
/** DSML's envelope names and marker spellings (FORMATS.md, deepseek-dsml; internal, also for `strayTokens`). */
export const DSML_ENVELOPES: readonly string[] = [
  "function_calls",
  "tool_calls",
  "calls",
  "tool_use",
  "toolcall",
  "toolcalls",
  "tool",
  "call",
]
export const DSML_MARKERS: readonly string[] = [
  "｜DSML｜",
  "‖DSML‖",
  "｜｜DSML｜｜ ",
  " | DSML | ",
  "｜DSML｜ ",
  " | | DSML | | ",
  // GigaChat 3.5's marker over the same grammar (vLLM tests/tool_parsers/test_gigachat35_tool_parser.py).
  "｜GCML｜",
]

const always = (): boolean => true
const never = (): boolean => false

/** A catalogue row without its id: what {@link RENDERERS} holds under the id. */
type Renderer = Omit<FormatSpec, "id">

/**
 * A catalogue row; what it leaves out is the common case: an enveloped format (not start-anchored)
 * with any tool name, one marker style, a closing marker, and no inner call header that survives
 * without the opening marker.
 */
const row = (spec: Pick<FormatSpec, "render"> & Partial<Renderer>): Renderer => ({
  startAnchored: false,
  identifierNames: false,
  styles: 1,
  hasClosing: always,
  innerHeader: never,
  ...spec,
})

/** JSON call objects in one shared envelope: `OPEN{"name": …, "arguments": {…}}, {…}CLOSE`. */
const jsonList = (
  calls: readonly CallSpec[],
  openText: string,
  closeText: string,
  separator = ", ",
): Rendered => ({
  head: [open(openText)],
  calls: calls.map((call) => jsonCall(call, "arguments", true)),
  separator,
  tail: [close(closeText)],
})

/** One JSON call object a call, each in its own envelope, a line apart: `OPEN{"name": …}CLOSE`. */
const jsonPerCall = (
  calls: readonly CallSpec[],
  openText: string,
  closeText: string,
  argsKey = "arguments",
  spaced = true,
): Rendered =>
  perCall(
    calls.map((call) => [open(openText), ...jsonCall(call, argsKey, spaced), close(closeText)]),
    "\n",
  )

/** Pythonic calls in one shared envelope: `OPENf(x=1), g(y=2)CLOSE`. */
const pythonList = (
  calls: readonly CallSpec[],
  openText: string,
  closeText: string,
  separator = ", ",
): Rendered => ({
  head: [open(openText)],
  calls: calls.map(pythonCall),
  separator,
  tail: [close(closeText)],
})

/**
 * Every format's renderer, keyed by format id: a format of `@tool-rescue/detector`'s `FORMAT_IDS`
 * without a renderer here, or a renderer for no format, is a type error.
 */
const RENDERERS: Record<FormatId, Renderer> = {
  "qwen3-coder": row({
    // Styles: 0 newlines between tags and around values, 1 everything on one line.
    styles: 2,
    innerHeader: always,
    render: (calls, style) => {
      const nl = style % 2 === 0 ? "\n" : ""
      return perCall(
        calls.map((call) => [
          open(`<tool_call>${nl}`),
          syntax(`<function=${call.name}>${nl}`),
          ...call.args.flatMap(([key, arg]) => [
            syntax(`<parameter=${key}>${nl}`),
            raw(arg),
            syntax(`${nl}</parameter>${nl}`),
          ]),
          syntax("</function>"),
          close(`${nl}</tool_call>`),
        ]),
        "\n",
      )
    },
  }),
  hermes: row({
    // Styles 0–7: tag `<tool_call>` / `<tools>` (L21), JSON spaced / compact, newline inside the tags or
    // not. 8: Step-Audio 2's type, name and arguments a line each (vLLM `step_audio_2`). 9: a Python
    // dict (RWKV's legacy calls, vLLM `rwkv`), its name first here: RWKV writes the arguments first,
    // and a call cut off in them has no name yet to label (the peer strings hold that order).
    styles: 10,
    render: (calls, style) => {
      if (style % 10 === 9)
        return perCall(
          calls.map((call) => [
            open("<tool_call>\n"),
            syntax(`{'name': ${pythonString(call.name)}, 'type': 'tool_call', 'arguments': `),
            ...pythonDict(call.args),
            syntax("}"),
            close("\n</tool_call>"),
          ]),
          "\n",
        )
      if (style % 10 === 8)
        return perCall(
          calls.map((call) => [
            open("<tool_call>"),
            syntax(`function\n${call.name}\n`),
            ...jsonArgs(call.args, true),
            close("</tool_call>"),
          ]),
          "\n",
        )
      const tag = style % 2 === 0 ? "tool_call" : "tools"
      const spaced = (style >> 1) % 2 === 0
      const nl = (style >> 2) % 2 === 0 ? "\n" : ""
      return jsonPerCall(calls, `<${tag}>${nl}`, `${nl}</${tag}>`, "arguments", spaced)
    },
  }),
  mistral: row({
    // Styles: 0 pre-v11 list, 1 v11 `[TOOL_CALLS]name{…}`, 2 v13 `[TOOL_CALLS]name[ARGS]{…}`,
    // 3 v13 with the call id (`name[CALL_ID]a1b2c3d4e[ARGS]{…}`, vLLM's mistral parser).
    bracketClosing: (style) => style % 4 === 0,
    styles: 4,
    hasClosing: (style) => style % 4 === 0,
    render: (calls, style) => {
      if (style % 4 === 0) return jsonList(calls, "[TOOL_CALLS] [", "]")
      const args = style % 4 === 2 ? "[ARGS]" : style % 4 === 3 ? "[CALL_ID]a1b2c3d4e[ARGS]" : ""
      return perCall(
        calls.map((call) => [
          open(`[TOOL_CALLS]`),
          syntax(`${call.name}${args}`),
          ...jsonArgs(call.args, true),
        ]),
        "",
      )
    },
  }),
  "llama3-json": row({
    // Styles: 0 bare JSON, 1 `<|python_tag|>` + JSON, 2 built-in `<|python_tag|>name.call(k=v)`.
    startAnchored: true,
    styles: 3,
    hasClosing: never,
    render: (calls, style) => {
      // Built-in tools call one tool per message, named as a Python identifier.
      if (style % 3 === 2 && calls.length === 1 && /^[A-Za-z_]\w*$/.test(calls[0]!.name)) {
        return {
          head: [open("<|python_tag|>")],
          calls: calls.map((call) => [syntax(`${call.name}.call(`), ...pythonArgs(call.args), syntax(")")]),
          separator: "\n",
          tail: [],
        }
      }
      return {
        head: style % 3 === 1 ? [open("<|python_tag|>")] : [],
        calls: calls.map((call) => jsonCall(call, "parameters", true)),
        separator: "; ",
        tail: [],
      }
    },
  }),
  pythonic: row({
    // Styles: 0 `[f(x=1), g(y=2)]`, 1 Llama 4 `<|python_start|>[…]<|python_end|>`.
    startAnchored: true,
    identifierNames: true,
    styles: 2,
    render: (calls, style) =>
      style % 2 === 0
        ? pythonList(calls, "[", "]")
        : pythonList(calls, "<|python_start|>[", "]<|python_end|>"),
  }),
  "deepseek-v3": row({
    // Styles: bit 0 R1/V3 (`function<sep>name` + ```json fence) or V3.1 (`name<sep>{…}`);
    // style >> 1 picks the opening spelling (§1.3 variants).
    styles: 6,
    innerHeader: always,
    render: (calls, style) => {
      const r1 = style % 2 === 0
      const begin = DS.callsBegin[(style >> 1) % DS.callsBegin.length]!
      return {
        head: [open(begin)],
        calls: calls.map((call) =>
          r1
            ? [
                syntax(`${DS.callBegin}function${DS.sep}${call.name}\n\`\`\`json\n`),
                ...jsonArgs(call.args, true),
                syntax(`\n\`\`\`${DS.callEnd}`),
              ]
            : [
                syntax(`${DS.callBegin}${call.name}${DS.sep}`),
                ...jsonArgs(call.args, true),
                syntax(DS.callEnd),
              ],
        ),
        separator: r1 ? "\n" : "",
        tail: [close(DS.callsEnd)],
      }
    },
  }),
  "deepseek-dsml": row({
    // Styles: the envelope's tag (V3.2 `function_calls`, V4 `tool_calls`, V4.1 `calls`, and the names
    // seen in the wild: `tool_use`, `toolcall`, `toolcalls`, `tool`, V4.1's truncated `call`; vLLM
    // #56141, tests/parser/engine/test_deepseek_v41.py), the family's marker spellings
    // (zed-industries/zed#59503, AgentFlocks/flocks PR #687, lsdefine/GenericAgent#804, V4.1's
    // `｜DSML｜ `, spaced doubled bars), whitespace drift (`name = '…'`, `<…tool_calls >`), and a
    // call's JSON in a ```json fence straight in the envelope (styles 3, 7, 11).
    styles: 12,
    innerHeader: (style) => style % 4 !== 3,
    render: (calls, style) => {
      const kind = DSML_ENVELOPES[style % DSML_ENVELOPES.length]!
      const d = DSML_MARKERS[style % DSML_MARKERS.length]!
      const gap = style % 5 === 2 ? " " : ""
      if (style % 4 === 3) {
        return {
          head: [open(`<${d}${kind}${gap}>\n\`\`\`json\n`)],
          calls: calls.map((call) => jsonCall(call, "arguments", true)),
          separator: "\n",
          tail: [close(`\n\`\`\`\n</${d}${kind}>`)],
        }
      }
      const nameAttr = (name: string): string => (style % 5 === 1 ? `name = '${name}'` : `name="${name}"`)
      return {
        head: [open(`<${d}${kind}${gap}>\n`)],
        calls: calls.map((call) => [
          syntax(`<${d}invoke ${nameAttr(call.name)}>\n`),
          ...namedParams(call.args, `${d}parameter`, `${d}parameter`, "\n", true),
          syntax(`</${d}invoke>`),
        ]),
        separator: "\n",
        tail: [close(`\n</${d}${kind}>`)],
      }
    },
  }),
  "kimi-k2": row({
    // Styles: 0 `tool_calls_section_begin`, 1 singular `tool_call_section_begin`.
    styles: 2,
    innerHeader: always,
    render: (calls, style) => ({
      head: [open(style % 2 === 0 ? "<|tool_calls_section_begin|>\n" : "<|tool_call_section_begin|>\n")],
      calls: calls.map((call, i) => [
        syntax(`<|tool_call_begin|>functions.${call.name}:${i}<|tool_call_argument_begin|>`),
        ...jsonArgs(call.args, true),
        syntax("<|tool_call_end|>"),
      ]),
      separator: "\n",
      tail: [close("\n<|tool_calls_section_end|>")],
    }),
  }),
  glm: row({
    // Styles: 0 GLM-4.5 (newlines), 1 GLM-4.7 (no newlines); 2, 3 the same in iQuest-Coder V2's
    // envelope (vLLM `iquest_coder_v2`), 4, 5 in IQuest Q1's (SGLang `iquest_q1`); 6, 7 GLM-5.3-Flash's
    // JSON form, `<tool_call>NAME>{…}` with no closer, 7 with a display name before the name
    // (SGLang `glm53_flash_detector.py`).
    styles: 8,
    hasClosing: (style) => style % 8 < 6,
    render: (calls, style) => {
      if (style % 8 >= 6) {
        const display = style % 8 === 7 ? "Tool/" : ""
        return perCall(
          calls.map((call) => [
            open(`<tool_call>${display}`),
            syntax(`${call.name}>`),
            ...jsonArgs(call.args, true),
          ]),
          "\n",
        )
      }
      const nl = style % 2 === 0 ? "\n" : ""
      const tag = ["tool_call", "iquestcoder_tool_call", "iquest_tool_call"][Math.floor((style % 8) / 2)]!
      return perCall(
        calls.map((call) => [
          open(`<${tag}>`),
          syntax(`${call.name}${nl}`),
          ...call.args.flatMap(([key, arg]) => [
            syntax(`<arg_key>${key}</arg_key>${nl}<arg_value>`),
            raw(arg),
            syntax(`</arg_value>${nl}`),
          ]),
          close(`</${tag}>`),
        ]),
        "\n",
      )
    },
  }),
  harmony: row({
    // Styles: 0 `<|start|>assistant<|channel|>commentary to=…`, 1 without `<|start|>assistant`,
    // 2 recipient before the channel. `<|call|>` closes. 3–5 the same with a space after each special
    // token, as LLM-jp-4.1's tokenizer writes (llama.cpp `common/parsers/llm-jp-harmony.cpp`).
    styles: 6,
    render: (calls, style) =>
      perCall(
        calls.map((call) => {
          const sp = style % 6 >= 3 ? " " : ""
          const header =
            style % 3 === 0
              ? `<|start|>${sp}assistant<|channel|>${sp}commentary to=functions.${call.name} <|constrain|>${sp}json<|message|>${sp}`
              : style % 3 === 1
                ? `<|channel|>${sp}commentary to=functions.${call.name} <|constrain|>${sp}json<|message|>${sp}`
                : `<|start|>${sp}assistant to=functions.${call.name}<|channel|>${sp}commentary json<|message|>${sp}`
          return [open(header), ...jsonArgs(call.args, false), close("<|call|>")]
        }),
        "\n",
      ),
  }),
  "minimax-m2": row({
    // Styles: 0 `<parameter name=…>`, 1 `<param name=…>`.
    aliases: (_, bareOpening) => (bareOpening ? ["anthropic-xml"] : []),
    styles: 2,
    innerHeader: always,
    render: (calls, style) => {
      const tag = style % 2 === 0 ? "parameter" : "param"
      return {
        head: [open("<minimax:tool_call>\n")],
        calls: calls.map((call) => [
          syntax(`<invoke name="${call.name}">\n`),
          ...namedParams(call.args, tag, tag, "\n"),
          syntax("</invoke>"),
        ]),
        separator: "\n",
        tail: [close("\n</minimax:tool_call>")],
      }
    },
  }),
  "minimax-m3": row({
    // every tag prefixed with the namespace token; parameters are tags named after the key.
    innerHeader: always,
    render: (calls) => ({
      head: [open(`${MM3}<tool_call>\n`)],
      calls: calls.map((call) => [
        syntax(`${MM3}<invoke name="${call.name}">`),
        ...call.args.flatMap(([key, arg]) => [syntax(`${MM3}<${key}>`), raw(arg), syntax(`${MM3}</${key}>`)]),
        syntax(`${MM3}</invoke>`),
      ]),
      separator: "\n",
      tail: [close(`\n${MM3}</tool_call>`)],
    }),
  }),
  "minimax-m1": row({
    // one JSON object a line inside `<tool_calls>`.
    render: (calls) => jsonList(calls, "<tool_calls>\n", "\n</tool_calls>", "\n"),
  }),
  granite: row({
    // Styles: 0 Granite 3.0 `<|tool_call|>[…]`, 1 granite-20b-fc `<function_call>{…}` per call. No closing.
    aliases: (style) => (style % 2 === 1 ? ["hermes"] : []),
    styles: 2,
    hasClosing: never,
    render: (calls, style) =>
      style % 2 === 0
        ? {
            head: [open("<|tool_call|>[")],
            calls: calls.map((call) => jsonCall(call, "arguments", true)),
            separator: ", ",
            tail: [syntax("]")],
          }
        : perCall(
            calls.map((call) => [open("<function_call>"), ...jsonCall(call, "arguments", true)]),
            " ",
          ),
  }),
  "function-gemma": row({
    //
    render: (calls) =>
      perCall(
        calls.map((call) => [
          open("<start_function_call>"),
          syntax(`call:${call.name}`),
          ...gemmaArgs(call.args, "<escape>"),
          close("<end_function_call>"),
        ]),
        "",
      ),
  }),
  gemma4: row({
    //
    render: (calls) =>
      perCall(
        calls.map((call) => [
          open("<|tool_call>"),
          syntax(`call:${call.name}`),
          ...gemmaArgs(call.args, '<|"|>'),
          close("<tool_call|>"),
        ]),
        "",
      ),
  }),
  "anthropic-xml": row({
    // Styles: 0 with newlines, 1 on one line, 2 legacy `<invoke><tool_name>…` (no inner
    // header); 3–5 the same with an XML namespace prefix on every tag (Claude's `antml:`, or another).
    aliases: (style, bareOpening) => (bareOpening && style % 6 < 2 ? ["minimax-m2"] : []),
    styles: 6,
    innerHeader: (style) => style % 3 !== 2,
    render: (calls, style) => {
      const p = style % 6 >= 3 ? "x:" : ""
      if (style % 3 === 2) {
        return {
          head: [open(`<${p}function_calls>`)],
          calls: calls.map((call) => [
            syntax(`<${p}invoke><${p}tool_name>${call.name}</${p}tool_name><${p}parameters>`),
            ...call.args.flatMap(([key, arg]) => [syntax(`<${key}>`), raw(arg), syntax(`</${key}>`)]),
            syntax(`</${p}parameters></${p}invoke>`),
          ]),
          separator: "",
          tail: [close(`</${p}function_calls>`)],
        }
      }
      const nl = style % 3 === 0 ? "\n" : ""
      return {
        head: [open(`<${p}function_calls>${nl}`)],
        calls: calls.map((call) => [
          syntax(`<${p}invoke name="${call.name}">${nl}`),
          ...namedParams(call.args, `${p}parameter`, `${p}parameter`, nl),
          syntax(`</${p}invoke>`),
        ]),
        separator: nl,
        tail: [close(`${nl}</${p}function_calls>`)],
      }
    },
  }),
  "command-r": row({
    // `Action: ```json` opens, the closing fence closes (the fence is the envelope).
    render: (calls) => ({
      head: [open("Action: ```json\n[\n")],
      calls: calls.map((call) => [
        syntax(`    {"tool_name": ${JSON.stringify(call.name)}, "parameters": `),
        ...jsonArgs(call.args, true),
        syntax("}"),
      ]),
      separator: ",\n",
      tail: [close("\n]\n```")],
    }),
  }),
  "command-r7b": row({
    //
    render: (calls) => ({
      head: [open("<|START_ACTION|>[")],
      calls: calls.map((call, i) => [
        syntax(`{"tool_call_id": "${i}", "tool_name": ${JSON.stringify(call.name)}, "parameters": `),
        ...jsonArgs(call.args, true),
        syntax("}"),
      ]),
      separator: ", ",
      tail: [close("]<|END_ACTION|>")],
    }),
  }),
  xlam: row({
    // a bare JSON list at the start of the output (its other openers belong to other rows).
    startAnchored: true,
    render: (calls) => jsonList(calls, "[", "]"),
  }),
  "seed-oss": row({
    //
    render: (calls) =>
      perCall(
        calls.map((call) => [
          open("<seed:tool_call>\n"),
          syntax(`<function=${call.name}>\n`),
          ...call.args.flatMap(([key, arg]) => [
            syntax(`<parameter=${key}>`),
            raw(arg),
            syntax("</parameter>\n"),
          ]),
          syntax("</function>"),
          close("\n</seed:tool_call>"),
        ]),
        "\n",
      ),
  }),
  functionary: row({
    // Styles: 0 v3.1 `<function=name>{…}</function>`, 1 v3.2 `>>>name\n{…}` (no closing).
    nameGated: true,
    styles: 2,
    hasClosing: (style) => style % 2 === 0,
    render: (calls, style) =>
      style % 2 === 0
        ? perCall(
            calls.map((call) => [
              open(`<function=${call.name}>`),
              ...jsonArgs(call.args, true),
              close("</function>"),
            ]),
            "\n",
          )
        : perCall(
            calls.map((call) => [open(`>>>${call.name}\n`), ...jsonArgs(call.args, true)]),
            "",
          ),
  }),
  step3: row({
    //
    innerHeader: always,
    render: (calls) => ({
      head: [open(`${STEP3.callsBegin}\n`)],
      calls: calls.map((call) => [
        syntax(`${STEP3.callBegin}function${STEP3.sep}<steptml:invoke name="${call.name}">\n`),
        ...namedParams(call.args, "steptml:parameter", "steptml:parameter", "\n"),
        syntax(`</steptml:invoke>${STEP3.callEnd}`),
      ]),
      separator: "\n",
      tail: [close(`\n${STEP3.callsEnd}`)],
    }),
  }),
  internlm: row({
    //
    render: (calls) => jsonPerCall(calls, "<|action_start|><|plugin|>\n", "<|action_end|>", "parameters"),
  }),
  jamba: row({
    //
    aliases: () => ["apriel"],
    render: (calls) => jsonList(calls, "<tool_calls>[", "]</tool_calls>"),
  }),
  "phi4-functools": row({
    // Styles: 0 Phi-4-mini `functools[`, 1 FireFunction ` functools[` (leading space).
    bracketClosing: always,
    styles: 2,
    render: (calls, style) => jsonList(calls, style % 2 === 0 ? "functools[" : " functools[", "]"),
  }),
  hunyuan: row({
    // Styles: 0 HY3 (`<tool_sep>` after the name); 1–3 HY v4, every tag with its vocabulary's suffix
    // and no `<tool_sep>` (vLLM `test_hy_v4_tool_parser.py`: `:opensource`, and any suffix the
    // vocabulary holds).
    styles: 4,
    render: (calls, style) => {
      const v4 = style % 4 !== 0
      const sfx = v4 ? ([":opensource", ":x1", ":a+b(c"] as const)[(style % 4) - 1]! : ""
      return {
        head: [open(`<tool_calls${sfx}>`)],
        calls: calls.map((call) => [
          syntax(`<tool_call${sfx}>${call.name}${v4 ? "" : "<tool_sep>"}`),
          ...call.args.flatMap(([key, arg]) => [
            syntax(`<arg_key${sfx}>${key}</arg_key${sfx}><arg_value${sfx}>`),
            raw(arg),
            syntax(`</arg_value${sfx}>`),
          ]),
          syntax(`</tool_call${sfx}>`),
        ]),
        separator: "",
        tail: [close(`</tool_calls${sfx}>`)],
      }
    },
  }),
  lfm2: row({
    // Styles: 0 a pythonic list; 1 a JSON list in the same tokens (openPangu, vLLM `openpangu_v2`);
    // 2 the JSON list in openPangu's reserved tokens `[unused11]` … `[unused12]` (vLLM `pangu`).
    identifierNames: true,
    styles: 3,
    render: (calls, style) =>
      style % 3 === 0
        ? pythonList(calls, "<|tool_call_start|>[", "]<|tool_call_end|>")
        : style % 3 === 1
          ? jsonList(calls, "<|tool_call_start|>[", "]<|tool_call_end|>")
          : jsonList(calls, "[unused11][", "][unused12]"),
  }),
  olmo3: row({
    // pythonic, one call a line.
    identifierNames: true,
    render: (calls) => pythonList(calls, "<function_calls>", "</function_calls>", "\n"),
  }),
  nemotron: row({
    //
    render: (calls) => jsonList(calls, "<TOOLCALL>[", "]</TOOLCALL>"),
  }),
  apertus: row({
    // short form `{name: {args}}`.
    render: (calls) => ({
      head: [open("<|tools_prefix|>[")],
      calls: calls.map((call) => [
        syntax(`{${JSON.stringify(call.name)}: `),
        ...jsonArgs(call.args, true),
        syntax("}"),
      ]),
      separator: ", ",
      tail: [close("]<|tools_suffix|>")],
    }),
  }),
  apriel: row({
    // the same text shape as Jamba (row 28); a detector may report either id.
    aliases: () => ["jamba"],
    render: (calls) => jsonList(calls, "<tool_calls>[", "]</tool_calls>"),
  }),
  longcat: row({
    // Meituan LongCat-Flash (vLLM `longcat`): Hermes JSON in its own tag.
    render: (calls) => jsonPerCall(calls, "<longcat_tool_call>", "</longcat_tool_call>"),
  }),
  gigachat3: row({
    // Sber GigaChat 3 (vLLM and SGLang `gigachat3`): the `function call` role, then one object.
    hasClosing: never,
    render: (calls) =>
      perCall(
        calls.map((call) => [open("function call<|role_sep|>\n"), ...jsonCall(call, "arguments", true)]),
        "\n",
      ),
  }),
  "kimi-k3": row({
    // Kimi K3 XTML (vLLM `kimi_k3`): `<|open|>TAG …<|sep|>` … `<|close|>TAG<|sep|>`. Styles: 0 as the
    // template writes it, 1 with the spaces a detokenizer puts between special tokens (the parser
    // reads `<|open|>\s*call…`).
    styles: 2,
    innerHeader: always,
    render: (calls, style) => {
      const sp = style % 2 === 0 ? "" : " "
      const tag = (token: string, name: string, rest = ""): string =>
        `${token}${sp}${name}${rest}${sp}<|sep|>`
      return {
        head: [open(tag("<|open|>", "tools"))],
        calls: calls.map((call, i) => [
          syntax(tag("<|open|>", "call", ` tool="${call.name}" index="${i + 1}"`)),
          ...call.args.flatMap(([key, arg]) => [
            syntax(tag("<|open|>", "argument", ` key="${key}" type="${typeof arg}"`)),
            raw(arg),
            syntax(tag("<|close|>", "argument")),
          ]),
          syntax(tag("<|close|>", "call")),
        ]),
        separator: "",
        tail: [close(tag("<|close|>", "tools"))],
      }
    },
  }),
  plamo3: row({
    // PLaMo 3 (vLLM `plamo3`): begin/end tag pairs around the requests, each request, its name and its JSON arguments.
    innerHeader: always,
    render: (calls) => {
      const tag = (edge: "begin" | "end", name: string): string => `<|plamo:${edge}_${name}:plamo|>`
      return {
        head: [open(tag("begin", "tool_requests"))],
        calls: calls.map((call) => [
          syntax(
            `${tag("begin", "tool_request")}${tag("begin", "tool_name")}${call.name}${tag("end", "tool_name")}`,
          ),
          syntax(`${tag("begin", "tool_arguments")}<|plamo:constrain|>json<|plamo:msg|>`),
          ...jsonArgs(call.args, true),
          syntax(`${tag("end", "tool_arguments")}${tag("end", "tool_request")}`),
        ]),
        separator: "",
        tail: [close(tag("end", "tool_requests"))],
      }
    },
  }),
  inkling: row({
    // Inkling (vLLM `inkling`): one invoke block a call, `{"name": …, "args": {…}}`.
    render: (calls) =>
      perCall(
        calls.map((call) => [
          open("<|content_invoke_tool_json|>"),
          ...jsonCall(call, "args", false),
          close("<|end_message|>"),
        ]),
        "\n",
      ),
  }),
  minicpm5: row({
    // MiniCPM 5 (vLLM `minicpm5`): no envelope; `<param name="K">` arguments. Styles: the space before
    // `name` as the tokenizer leaves it (a space, `Ġ`, none).
    styles: 3,
    hasClosing: never,
    nameGated: true,
    render: (calls, style) => {
      const sp = [" ", "\u0120", ""][style % 3]!
      return perCall(
        calls.map((call) => [
          syntax(`<function${sp}name="${call.name}">`),
          ...call.args.flatMap(([key, arg]) => [
            syntax(`<param${sp}name="${key}">`),
            raw(arg),
            syntax("</param>"),
          ]),
          syntax("</function>"),
        ]),
        "\n",
      )
    },
  }),
  "solar-open2": row({
    // Upstage Solar Open 2 (vLLM `solar_open2`): one envelope a call, the name on its line, `<|tool_arg:…|>` arguments.
    render: (calls) =>
      perCall(
        calls.map((call) => [
          open("<|tool_call:start|>"),
          syntax(`${call.name}\n`),
          ...call.args.flatMap(([key, arg]) => [
            syntax(`<|tool_arg:start|>${key}<|tool_arg:value|>`),
            raw(arg),
            syntax("<|tool_arg:end|>\n"),
          ]),
          close("<|tool_call:end|>"),
        ]),
        "\n",
      ),
  }),
  "k2-horizon": row({
    // K2 Horizon (vLLM `k2_horizon`): styles 0 its XML form, 1 the typed XML form, both in their group;
    // 2 its JSON form, each call between its own call tokens.
    styles: 3,
    innerHeader: (style) => style % 3 !== 2,
    render: (calls, style) =>
      style % 3 === 2
        ? jsonPerCall(calls, "<ifm|tool_call>", "</ifm|tool_call>")
        : {
            head: [open("<ifm|tool_calls>")],
            calls: calls.map((call) => [
              syntax(`<ifm|tool_call>${call.name}`),
              ...call.args.flatMap(([key, arg]) => [
                syntax(`<ifm|arg_key>${key}</ifm|arg_key>`),
                ...(style % 3 === 1 ? [syntax(`<ifm|arg_type>${typeof arg}</ifm|arg_type>`)] : []),
                syntax("<ifm|arg_value>"),
                raw(arg),
                syntax("</ifm|arg_value>"),
              ]),
              syntax("</ifm|tool_call>"),
            ]),
            separator: "\n",
            tail: [close("</ifm|tool_calls>")],
          },
  }),
  lmstudio: row({
    // LM Studio's own convention (its tool-use prompt): one call object a request. Styles: 0 as its
    // prompt asks, 1 the name in brackets on a line of its own, the arguments on the next
    // (openclaw/openclaw#66178): no opening marker, so an offered name or the closer is its evidence;
    // 2 the name then its arguments, closed by `[TOOL_REQUEST_END]` (Gemma 3, vybestack/llxprt-code).
    styles: 3,
    render: (calls, style) =>
      style % 3 === 0
        ? jsonPerCall(calls, "[TOOL_REQUEST]", "[END_TOOL_REQUEST]")
        : style % 3 === 2
          ? perCall(
              calls.map((call) => [
                open("[TOOL_REQUEST]\n"),
                syntax(`${call.name} `),
                ...jsonArgs(call.args, true),
                close("\n[TOOL_REQUEST_END]"),
              ]),
              "\n",
            )
          : perCall(
              calls.map((call) => [
                syntax(`[${call.name}]\n`),
                ...jsonArgs(call.args, false),
                close("\n[END_TOOL_REQUEST]"),
              ]),
              "\n",
            ),
  }),
  dots: row({
    // dots (vLLM and SGLang `dots`): styles 0 Anthropic-style invokes with newlines, 1 on one line, both
    // in one envelope; 2 one call object an envelope. Without its opener an invoke reads as
    // Anthropic XML's bare one, which the orphan `</dots_function_call>` tells apart.
    styles: 3,
    innerHeader: (style) => style % 3 !== 2,
    aliases: (_, bareOpening) => (bareOpening ? ["anthropic-xml"] : []),
    render: (calls, style) => {
      if (style % 3 === 2) return jsonPerCall(calls, "<dots_function_call>", "</dots_function_call>")
      const nl = style % 3 === 0 ? "\n" : ""
      return {
        head: [open(`<dots_function_call>${nl}`)],
        calls: calls.map((call) => [
          syntax(`<invoke name="${call.name}">${nl}`),
          ...namedParams(call.args, "parameter", "parameter", nl),
          syntax("</invoke>"),
        ]),
        separator: nl,
        tail: [close(`${nl}</dots_function_call>`)],
      }
    },
  }),
  cwm: row({
    // CWM (vLLM `cwm`): `<tool: function>`, then the name and its arguments as JSON (the parser reads
    // JSON after the name, else wraps the text as `{"command": …}`): styles 0 on the name's line, 1 on the next.
    identifierNames: true,
    styles: 2,
    render: (calls, style) =>
      perCall(
        calls.map((call) => [
          open("<tool: function>\n"),
          syntax(`${call.name}${style % 2 === 0 ? " " : "\n"}`),
          ...jsonArgs(call.args, true),
          close("\n</tool>"),
        ]),
        "\n",
      ),
  }),
  rwkv: row({
    // RWKV (vLLM `rwkv`): a `**Tool Call:**` line, then one call object in a ```` ```json ```` fence.
    render: (calls) => jsonPerCall(calls, "**Tool Call:**\n```json\n", "\n```"),
  }),
  "cline-xml": row({
    // a client prompt protocol, detected only when the format is enabled explicitly.
    nameGated: true,
    identifierNames: true,
    render: (calls) =>
      perCall(
        calls.map((call) => [
          open(`<${call.name}>\n`),
          ...call.args.flatMap(([key, arg]) => [syntax(`<${key}>`), raw(arg), syntax(`</${key}>\n`)]),
          close(`</${call.name}>`),
        ]),
        "\n",
      ),
  }),
}

/** The catalogue, keyed by format id, in catalogue order (`FORMAT_IDS`, FORMATS.md). */
export const formatSpecs: ReadonlyMap<FormatId, FormatSpec> = new Map(
  FORMAT_IDS.map((id) => [id, { id, ...RENDERERS[id] }]),
)
