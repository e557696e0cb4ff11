/**
 * What to fix in the model's server when a model leaks tool calls on most turns, or always in one
 * format: the server's tool parser or chat template does not match what the model writes. One
 * table, keyed by the detector's format ids, read by `probe`'s doctor and by
 * `docs/troubleshooting.md` (checked against it by `test/troubleshooting-doc.test.ts`).
 *
 * Parser names are the servers' own registries: vLLM's `--tool-call-parser` choices
 * (`vllm/tool_parsers/__init__.py`, `_TOOL_PARSERS_TO_REGISTER`) and SGLang's
 * (`sglang/srt/function_call/function_call_parser.py`, `ToolCallParserEnum`). A format with no
 * parser in a server has none listed: nothing in that server turns the text into a call, and
 * tool-rescue (or a different model) is the fix.
 */
import { type FormatId, formats } from "@tool-rescue/detector"

/**
 * The servers the doctor knows.
 *
 * @example
 * ```ts
 * const isServer = (s: string): s is ServerId => (SERVER_IDS as readonly string[]).includes(s)
 * ```
 */
export const SERVER_IDS = ["vllm", "sglang", "llamacpp", "ollama", "lmstudio"] as const

/** One of {@link SERVER_IDS}. */
export type ServerId = (typeof SERVER_IDS)[number]

/**
 * A server's parser for some of a format's models, when one format's models need different
 * parsers (Hunyuan HY3 and HY v4 write one format, and vLLM parses each with its own). No
 * `parser`: the server has none for those models.
 *
 * @example
 * ```ts
 * const hy4: ModelParser = { models: "HY v4", parser: "hy_v4" }
 * ```
 */
export interface ModelParser {
  /** The models, as the format's `models` names them. */
  readonly models: string
  readonly parser?: string
}

/** A server's `--tool-call-parser` value for a format: one for all its models, or one per model. */
export type FormatParser = string | readonly ModelParser[]

/** The tool parser each server has for a format (its `--tool-call-parser` value). */
export interface FormatParsers {
  readonly vllm?: FormatParser
  readonly sglang?: FormatParser
}

/**
 * Parsers per format. llama.cpp, Ollama and LM Studio pick their parser from the chat template,
 * so for them the fix is the template, not a name.
 */
export const TOOL_PARSERS: Readonly<Record<FormatId, FormatParsers>> = {
  "qwen3-coder": { vllm: "qwen3_coder", sglang: "qwen3_coder" },
  hermes: { vllm: "hermes", sglang: "hermes" },
  mistral: { vllm: "mistral", sglang: "mistral" },
  "llama3-json": { vllm: "llama3_json", sglang: "llama3" },
  pythonic: { vllm: "pythonic", sglang: "pythonic" },
  "deepseek-v3": { vllm: "deepseek_v3", sglang: "deepseekv3" },
  "deepseek-dsml": { vllm: "deepseek_v32", sglang: "deepseekv32" },
  "kimi-k2": { vllm: "kimi_k2", sglang: "kimi_k2" },
  // Spark3 and the iQuest models write GLM 4.7's call under parser names we could not confirm in
  // vLLM's or SGLang's registry: listed without one (the doctor names none for them).
  glm: {
    vllm: [
      { models: "GLM-4.5/4.6/4.7/5.x, Laguna, Ling 3", parser: "glm45" },
      { models: "Spark3, iQuest-Coder V2, IQuest Q1" },
    ],
    sglang: [
      { models: "GLM-4.5/4.6/4.7/5.x, Laguna, Ling 3", parser: "glm45" },
      { models: "Spark3, iQuest-Coder V2, IQuest Q1" },
    ],
  },
  // LLM-jp-4.1 writes Harmony with a space after each special token: llama.cpp reads it, no vLLM or
  // SGLang parser is known to.
  harmony: {
    vllm: [{ models: "gpt-oss (Harmony)", parser: "openai" }, { models: "LLM-jp-4.1" }],
    sglang: [{ models: "gpt-oss (Harmony)", parser: "gpt-oss" }, { models: "LLM-jp-4.1" }],
  },
  "minimax-m2": { vllm: "minimax_m2", sglang: "minimax-m2" },
  "minimax-m3": { vllm: "minimax_m3", sglang: "minimax-m3" },
  "minimax-m1": {},
  granite: { vllm: "granite" },
  "function-gemma": { vllm: "functiongemma" },
  gemma4: { vllm: "gemma4", sglang: "gemma4" },
  "anthropic-xml": {},
  "command-r": {},
  "command-r7b": {},
  xlam: { vllm: "xlam" },
  "seed-oss": { vllm: "seed_oss" },
  functionary: {},
  step3: { vllm: "step3", sglang: "step3" },
  internlm: { vllm: "internlm", sglang: "interns1" },
  jamba: { vllm: "jamba" },
  "phi4-functools": { vllm: "phi4_mini_json" },
  // vLLM's `hunyuan_a13b` and SGLang's first `hunyuan` read Hunyuan-A13B's JSON list, not these
  // tags; SGLang's `hunyuan` now reads HY3's (its `<tool_sep>` required), and nothing of SGLang's HY v4's.
  hunyuan: {
    vllm: [
      { models: "HY3", parser: "hy_v3" },
      { models: "HY v4", parser: "hy_v4" },
    ],
    sglang: [{ models: "HY3", parser: "hunyuan" }, { models: "HY v4" }],
  },
  lfm2: {
    vllm: [
      { models: "Liquid LFM2", parser: "lfm2" },
      { models: "openPangu", parser: "pangu" },
    ],
    sglang: [{ models: "Liquid LFM2", parser: "lfm2" }, { models: "openPangu" }],
  },
  olmo3: { vllm: "olmo3" },
  nemotron: {},
  apertus: { vllm: "apertus" },
  apriel: {},
  longcat: { vllm: "longcat" },
  gigachat3: { vllm: "gigachat3", sglang: "gigachat3" },
  "kimi-k3": { sglang: "kimi_k3" },
  plamo3: { vllm: "plamo3" },
  inkling: { vllm: "inkling" },
  "solar-open2": { vllm: "solar_open2" },
  minicpm5: { vllm: "minicpm5" },
  "k2-horizon": { vllm: "k2_horizon" },
  // LM Studio's own convention: no server parser names it (LM Studio reads it itself).
  lmstudio: {},
  dots: { vllm: "dots" },
  cwm: { vllm: "cwm" },
  rwkv: { vllm: "rwkv" },
  "cline-xml": {},
}

/** What to check in one server for one format. */
export interface ServerFix {
  /** The setting at fault, in a few words; code in backticks (`` `--jinja` and the chat template ``). */
  readonly check: string
  /** Steps, each a sentence; code in backticks. */
  readonly steps: readonly string[]
}

/** How the doctor recognises a server and what it prints for it. */
export interface ServerEntry {
  readonly name: string
  /** `owned_by` values of `GET /v1/models` this server answers with. */
  readonly ownedBy: readonly string[]
  /** Lower-case fragments of the `server` response header. */
  readonly serverHeader: readonly string[]
  /** The port the server listens on by default (a last, weak hint). */
  readonly defaultPort: number
  readonly fix: (format: FormatId) => ServerFix
}

/** The model families that write `format` (FORMATS.md). */
export function formatModels(format: FormatId): string {
  return formats.find((info) => info.id === format)?.models ?? format
}

const KEEP = "Until then, `tool-rescue serve` in front of the server recovers the leaked calls."

/**
 * A format's parser in one server as a list, one entry per model group (one entry with no
 * `parser` when the server has none for the format).
 *
 * @example
 * ```ts
 * modelParsers("hunyuan", "vllm") // [{ models: "HY3", parser: "hy_v3" }, { models: "HY v4", parser: "hy_v4" }]
 * ```
 */
export function modelParsers(format: FormatId, server: "vllm" | "sglang"): readonly ModelParser[] {
  const parser = TOOL_PARSERS[format][server]
  if (parser === undefined) return [{ models: formatModels(format) }]
  return typeof parser === "string" ? [{ models: formatModels(format), parser }] : parser
}

function parserFix(server: "vllm" | "sglang", format: FormatId): ServerFix {
  const name = server === "vllm" ? "vLLM" : "SGLang"
  const parsers = modelParsers(format, server)
  const parsed = parsers.flatMap((entry) =>
    entry.parser === undefined ? [] : [{ ...entry, parser: entry.parser }],
  )
  const unparsed = parsers.filter((entry) => entry.parser === undefined).map((entry) => entry.models)
  if (parsed.length === 0) {
    return {
      check: "`--tool-call-parser`",
      steps: [
        `${name} has no tool parser for the ${format} format (${formatModels(format)}): it returns the call as text.`,
        `Serve a model whose format ${name} parses, or keep \`tool-rescue serve\` in front of the server: it recovers the leaked calls.`,
      ],
    }
  }
  const flags = (parser: string) =>
    server === "vllm"
      ? `--enable-auto-tool-choice --tool-call-parser ${parser}`
      : `--tool-call-parser ${parser}`
  const single = parsed.length === 1 && unparsed.length === 0
  const check = single
    ? `\`${flags(parsed[0]!.parser)}\``
    : parsed.map((entry) => `\`${flags(entry.parser)}\` (${entry.models})`).join(" or ")
  const start = single
    ? `\`${flags(parsed[0]!.parser)}\``
    : parsed.map((entry) => `\`${flags(entry.parser)}\` for ${entry.models}`).join(", ")
  return {
    check,
    steps: [
      `Start ${name} with ${start}: the model writes the ${format} format (${formatModels(format)}).`,
      ...(unparsed.length === 0
        ? []
        : [
            `${name} has no tool parser for ${unparsed.join(", ")}: it returns their calls as text (serve it with another server, or keep \`tool-rescue serve\` in front).`,
          ]),
      `If the parser is set, check the chat template: it must render the tools and the ${format} call syntax (pass the model's own template with \`--chat-template <file>\`).`,
      KEEP,
    ],
  }
}

/**
 * The servers, keyed by id. `owned_by` values: vLLM `vllm`, SGLang `sglang`, llama.cpp `llamacpp`,
 * Ollama `library` (or the model's namespace) and `ollama`, LM Studio `organization_owner`.
 */
export const SERVERS: Readonly<Record<ServerId, ServerEntry>> = {
  vllm: {
    name: "vLLM",
    ownedBy: ["vllm"],
    serverHeader: ["vllm"],
    defaultPort: 8000,
    fix: (format) => parserFix("vllm", format),
  },
  sglang: {
    name: "SGLang",
    ownedBy: ["sglang"],
    serverHeader: ["sglang"],
    defaultPort: 30000,
    fix: (format) => parserFix("sglang", format),
  },
  llamacpp: {
    name: "llama.cpp",
    ownedBy: ["llamacpp"],
    serverHeader: ["llama.cpp"],
    defaultPort: 8080,
    fix: (format) => ({
      check: "`--jinja` and the chat template",
      steps: [
        "Start `llama-server` with `--jinja`: without it tools are not rendered into the prompt and calls are not parsed.",
        `llama.cpp picks its tool-call parser from the chat template: if the GGUF's embedded template is not the model's own, pass it with \`--chat-template-file <file>\` (the template of ${formatModels(format)}, which writes the ${format} format).`,
        KEEP,
      ],
    }),
  },
  ollama: {
    name: "Ollama",
    ownedBy: ["library", "ollama"],
    serverHeader: ["ollama"],
    defaultPort: 11434,
    fix: (format) => ({
      check: "the model's template",
      steps: [
        "Look at the model's template: `ollama show --template <model>`. It must render `.Tools` and describe the call syntax the model writes.",
        `Ollama parses tool calls from what the template says a call looks like; the model writes the ${format} format (${formatModels(format)}). Pull the model again from the library, or build it with a Modelfile whose \`TEMPLATE\` is the model's own (\`ollama create\`).`,
        KEEP,
      ],
    }),
  },
  lmstudio: {
    name: "LM Studio",
    ownedBy: ["organization_owner"],
    serverHeader: ["lm studio", "lmstudio"],
    defaultPort: 1234,
    fix: (format) => ({
      check: "the prompt template",
      steps: [
        "In LM Studio, open the model's settings (My Models → the model → Prompt Template) and use the model's own Jinja template, with its tool section.",
        `LM Studio parses tool calls only in a format it recognises from that template; the model writes the ${format} format (${formatModels(format)}). Update LM Studio and the model's files if the template was lost in a conversion.`,
        KEEP,
      ],
    }),
  },
}

/** Where the server's identity came from, strongest first. */
export type ServerSource = "flag" | "owned_by" | "header" | "port"

/** A recognised server. */
export interface DetectedServer {
  readonly id: ServerId
  readonly source: ServerSource
}

/** What `probe` saw of the server. */
export interface ServerClues {
  readonly flag?: ServerId | undefined
  /** `owned_by` of the probed model (or of every model) in `GET /v1/models`. */
  readonly ownedBy?: readonly string[] | undefined
  /** Response headers, names lower-case. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly baseURL?: string | undefined
}

/**
 * The server behind an endpoint: `--server` wins, then `owned_by`, then the `server` header, then
 * the default port.
 *
 * @example
 * ```ts
 * detectServer({ ownedBy: ["vllm"] }) // { id: "vllm", source: "owned_by" }
 * detectServer({ headers: { server: "llama.cpp" } }) // { id: "llamacpp", source: "header" }
 * ```
 */
export function detectServer(clues: ServerClues): DetectedServer | undefined {
  if (clues.flag !== undefined) return { id: clues.flag, source: "flag" }
  for (const owner of clues.ownedBy ?? []) {
    const id = SERVER_IDS.find((server) => SERVERS[server].ownedBy.includes(owner.toLowerCase()))
    if (id !== undefined) return { id, source: "owned_by" }
  }
  const header = clues.headers?.server?.toLowerCase()
  if (header !== undefined) {
    const id = SERVER_IDS.find((server) => SERVERS[server].serverHeader.some((part) => header.includes(part)))
    if (id !== undefined) return { id, source: "header" }
  }
  if (clues.baseURL !== undefined) {
    let port: number | undefined
    try {
      port = Number(new URL(clues.baseURL).port)
    } catch {
      port = undefined
    }
    const id = SERVER_IDS.find((server) => SERVERS[server].defaultPort === port)
    if (id !== undefined) return { id, source: "port" }
  }
  return undefined
}
