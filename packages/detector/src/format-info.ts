import { FORMAT_IDS, type FormatId } from "./format-ids.ts"
import { OPENER_ROWS } from "./format-table.ts"
import type { FormatInfo } from "./types.ts"

/** What the catalogue says of one format besides its id. */
type Entry = Pick<FormatInfo, "models" | "exampleTool" | "example">

/**
 * Keyed by format id: a format with no entry, or an entry for no format, is a type error.
 * `FORMATS.md` shows each example and is checked against this table (`test/formats-doc.test.ts`).
 */
const CATALOGUE: Record<FormatId, Entry> = {
  "qwen3-coder": {
    models: "Qwen3-Coder, Qwen3.5/3.6 XML mode, Nemotron-3-Nano, Step-3.5, MiMo, BerryLM, iQuest-Coder",
    exampleTool: "read_file",
    example:
      "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>",
  },
  hermes: {
    models: "Hermes-2-Pro, Qwen2.5/Qwen3/QwQ (JSON), Granite 4, MiMo, Kolibri 1, Trinity, Step-Audio 2",
    exampleTool: "get_weather",
    example: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
  },
  mistral: {
    models: "Mistral 7B v0.3, Nemo, Small 3.x, Magistral, Devstral",
    exampleTool: "get_weather",
    example: '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
  },
  "llama3-json": {
    models: "Llama 3.1/3.3/4 JSON",
    exampleTool: "get_weather",
    example: '{"name": "get_weather", "parameters": {"city": "Paris"}}',
  },
  pythonic: {
    models: "Llama 3.2/4 pythonic, ToolACE, Gemma 3 prompts",
    exampleTool: "get_weather",
    example: '[get_weather(city="Paris")]',
  },
  "deepseek-v3": {
    models: "DeepSeek R1, V3, V3-0324, V3.1",
    exampleTool: "get_current_weather",
    example:
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_weather\n```json\n{"location": "Tokyo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  },
  "deepseek-dsml": {
    models: "DeepSeek V3.2 (DSML), V4, GigaChat 3.5 (GCML)",
    exampleTool: "get_favorite_tourist_spot",
    example:
      '<｜DSML｜function_calls>\n    <｜DSML｜invoke name="get_favorite_tourist_spot">\n    <｜DSML｜parameter name="city" string="true">San Francisco</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
  },
  "kimi-k2": {
    models: "Kimi K2, K2-Thinking, K2.5",
    exampleTool: "get_weather",
    example:
      '<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>\n<|tool_calls_section_end|>',
  },
  glm: {
    models: "GLM-4.5/4.6/4.7/5.x, Laguna, Ling 3, Spark3, iQuest-Coder V2, IQuest Q1",
    exampleTool: "get_weather",
    example: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n</tool_call>",
  },
  harmony: {
    models: "gpt-oss (Harmony), LLM-jp-4.1",
    exampleTool: "get_weather",
    example:
      '<|channel|>analysis<|message|>We need to use the get_weather function.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Berlin"}<|call|>',
  },
  "minimax-m2": {
    models: "MiniMax M2, M2.1, M2.5, M2.7",
    exampleTool: "get_weather",
    example:
      '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>',
  },
  "minimax-m3": {
    models: "MiniMax M3",
    exampleTool: "read_file",
    example:
      ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="read_file">]<]minimax[>[<path>src/main.rs]<]minimax[>[</path>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>',
  },
  "minimax-m1": {
    models: "MiniMax M1, Text-01",
    exampleTool: "get_weather",
    example: '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_calls>',
  },
  granite: {
    models: "Granite 3.0, 3.3, 4.0 H-Small, granite-20b-fc",
    exampleTool: "get_weather",
    example: '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
  },
  "function-gemma": {
    models: "FunctionGemma",
    exampleTool: "get_weather",
    example: "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>",
  },
  gemma4: {
    models: "Gemma 4",
    exampleTool: "get_weather",
    example: '<|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|>',
  },
  "anthropic-xml": {
    models: "Claude-style XML (Kimi K2.5/2.6, MiniMax via Ollama, DeepSeek-V4, MuseGlimmer, proxies)",
    exampleTool: "Read",
    example:
      '<function_calls>\n<invoke name="Read">\n<parameter name="file_path">/a.md</parameter>\n</invoke>\n</function_calls>',
  },
  "command-r": {
    models: "Cohere Command-R / R+ / Aya",
    exampleTool: "get_weather",
    example:
      'Action: ```json\n[\n    {\n        "tool_name": "get_weather",\n        "parameters": {"city": "Paris"}\n    }\n]\n```',
  },
  "command-r7b": {
    models: "Cohere Command R7B, Command A",
    exampleTool: "get_weather",
    example:
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>',
  },
  xlam: {
    models: "Salesforce xLAM",
    exampleTool: "get_weather",
    example: '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
  },
  "seed-oss": {
    models: "ByteDance Seed-OSS",
    exampleTool: "get_weather",
    example:
      "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>",
  },
  functionary: {
    models: "Functionary v3.1 / v3.2",
    exampleTool: "get_weather",
    example: '<function=get_weather>{"city": "Paris"}</function>',
  },
  step3: {
    models: "Step3",
    exampleTool: "get_weather",
    example:
      '<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">\n<steptml:parameter name="city">Paris</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>',
  },
  internlm: {
    models: "InternLM 2.5, Intern-S1",
    exampleTool: "get_weather",
    example:
      '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>',
  },
  jamba: {
    models: "AI21 Jamba",
    exampleTool: "get_weather",
    example: '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>',
  },
  "phi4-functools": {
    models: "Phi-4-mini, FireFunction v2",
    exampleTool: "get_weather",
    example: 'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
  },
  hunyuan: {
    models: "Tencent Hunyuan HY3, HY v4",
    exampleTool: "get_weather",
    example:
      "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call></tool_calls>",
  },
  lfm2: {
    models: "Liquid LFM2, openPangu",
    exampleTool: "get_weather",
    example: '<|tool_call_start|>[get_weather(location="Paris")]<|tool_call_end|>',
  },
  olmo3: {
    models: "Olmo 3",
    exampleTool: "get_weather",
    example: '<function_calls>get_weather(location="NYC")</function_calls>',
  },
  nemotron: {
    models: "Nemotron v2",
    exampleTool: "get_weather",
    example: '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL>',
  },
  apertus: {
    models: "Swiss AI Apertus",
    exampleTool: "get_weather",
    example: '<|tools_prefix|>[{"get_weather": {"city": "Paris"}}]<|tools_suffix|>',
  },
  apriel: {
    models: "ServiceNow Apriel 1.5 (same text as Jamba: reported as `jamba` while both are enabled)",
    exampleTool: "get_weather",
    example: '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>',
  },
  longcat: {
    models: "Meituan LongCat-Flash",
    exampleTool: "get_weather",
    example: '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</longcat_tool_call>',
  },
  gigachat3: {
    models: "Sber GigaChat 3",
    exampleTool: "get_weather",
    example: 'function call<|role_sep|>\n{"name": "get_weather", "arguments": {"city": "Paris"}}',
  },
  plamo3: {
    models: "PLaMo 3",
    exampleTool: "get_weather",
    example:
      '<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"city": "Tokyo"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>',
  },
  inkling: {
    models: "Inkling",
    exampleTool: "get_weather",
    example: '<|content_invoke_tool_json|>{"name":"get_weather","args":{"city":"SF"}}<|end_message|>',
  },
  minicpm5: {
    models: "MiniCPM 5",
    exampleTool: "get_weather",
    example:
      '<function name="get_weather"><param name="city">上海</param><param name="date">2024-06-27</param></function>',
  },
  "solar-open2": {
    models: "Upstage Solar Open 2",
    exampleTool: "get_weather",
    example:
      "<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>\n<|tool_call:end|>",
  },
  "k2-horizon": {
    models: "K2 Horizon",
    exampleTool: "get_weather",
    example:
      "<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
  },
  lmstudio: {
    models: "LM Studio's tool-use prompt (models without a native format)",
    exampleTool: "get_weather",
    example: '[TOOL_REQUEST]{"name": "get_weather", "arguments": {"city": "Paris"}}[END_TOOL_REQUEST]',
  },
  "kimi-k3": {
    models: "Moonshot Kimi K3 (XTML)",
    exampleTool: "get_weather",
    example:
      '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
  },
  dots: {
    models: "rednote-hilab dots",
    exampleTool: "search",
    example:
      '<dots_function_call>\n<invoke name="search">\n<parameter name="query">weather in Shanghai</parameter>\n</invoke>\n</dots_function_call>',
  },
  cwm: {
    models: "Meta CWM (Code World Model)",
    exampleTool: "terminal",
    example: "<tool: function>\nterminal echo hi\n</tool>",
  },
  rwkv: {
    models: "RWKV",
    exampleTool: "get_weather",
    example:
      '**Tool Call:**\n```json\n{\n  "name": "get_weather",\n  "arguments": {\n    "city": "Paris"\n  }\n}\n```',
  },
  "cline-xml": {
    models: "Cline / Roo-Code prompt XML (opt-in)",
    exampleTool: "read_file",
    example: "<read_file>\n<path>src/main.js</path>\n</read_file>",
  },
}

/**
 * The catalogue of `FORMATS.md`: every format id the detector reports, the models that write it,
 * and a real example. `cline-xml` is off by default (it is intentional content for Cline-style
 * clients).
 *
 * @example
 * ```ts
 * import { formats, scan } from "@tool-rescue/detector"
 *
 * for (const f of formats) {
 *   const { markup } = scan(f.example, { tools: [f.exampleTool], formats: [f.id] })
 *   console.log(f.id, markup[0]?.toolName) // e.g. "hermes get_weather"
 * }
 * ```
 */
export const formats: readonly FormatInfo[] = Object.freeze(
  FORMAT_IDS.map((id): FormatInfo => {
    const { models, example, exampleTool } = CATALOGUE[id]
    // Off by default when its rows are opt-in (`cline-xml`: intentional content for some clients).
    const enabledByDefault = !OPENER_ROWS.some((row) => row.format === id && row.optIn)
    return { id, models, enabledByDefault, example, exampleTool }
  }),
)
