import { OPENER_ROWS } from "./format-table.ts"
import type { FormatId, FormatInfo } from "./types.ts"

const info = (id: FormatId, models: string, exampleTool: string, example: string): FormatInfo => ({
  id,
  models,
  // Off by default when its rows are opt-in (`cline-xml`: intentional content for some clients).
  enabledByDefault: !OPENER_ROWS.some((row) => row.format === id && row.optIn),
  example,
  exampleTool,
})

/**
 * The catalogue of FORMATS.md: every format id the detector reports, the models that write it, and
 * a real example. `cline-xml` is off by default (it is intentional content for Cline-style clients).
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
export const formats: readonly FormatInfo[] = Object.freeze([
  info(
    "qwen3-coder",
    "Qwen3-Coder, Qwen3.5/3.6 XML mode, Nemotron-3-Nano, Step-3.5, MiMo",
    "read_file",
    "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>",
  ),
  info(
    "hermes",
    "Hermes-2-Pro, Qwen2.5/Qwen3/QwQ (JSON), Granite 4, MiMo",
    "get_weather",
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
  ),
  info(
    "mistral",
    "Mistral 7B v0.3, Nemo, Small 3.x, Magistral, Devstral",
    "get_weather",
    '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
  ),
  info(
    "llama3-json",
    "Llama 3.1/3.3/4 JSON",
    "get_weather",
    '{"name": "get_weather", "parameters": {"city": "Paris"}}',
  ),
  info(
    "pythonic",
    "Llama 3.2/4 pythonic, ToolACE, Gemma 3 prompts",
    "get_weather",
    '[get_weather(city="Paris")]',
  ),
  info(
    "deepseek-v3",
    "DeepSeek R1, V3, V3-0324, V3.1",
    "get_current_weather",
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_weather\n```json\n{"location": "Tokyo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  ),
  info(
    "deepseek-dsml",
    "DeepSeek V3.2 (DSML), V4",
    "get_favorite_tourist_spot",
    '<｜DSML｜function_calls>\n    <｜DSML｜invoke name="get_favorite_tourist_spot">\n    <｜DSML｜parameter name="city" string="true">San Francisco</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
  ),
  info(
    "kimi-k2",
    "Kimi K2, K2-Thinking, K2.5",
    "get_weather",
    '<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>\n<|tool_calls_section_end|>',
  ),
  info(
    "glm",
    "GLM-4.5/4.6/4.7/5.x, Laguna",
    "get_weather",
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n</tool_call>",
  ),
  info(
    "harmony",
    "gpt-oss (Harmony)",
    "get_weather",
    '<|channel|>analysis<|message|>We need to use the get_weather function.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Berlin"}<|call|>',
  ),
  info(
    "minimax-m2",
    "MiniMax M2, M2.1, M2.5, M2.7",
    "get_weather",
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>',
  ),
  info(
    "minimax-m3",
    "MiniMax M3",
    "read_file",
    ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="read_file">]<]minimax[>[<path>src/main.rs]<]minimax[>[</path>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>',
  ),
  info(
    "minimax-m1",
    "MiniMax M1, Text-01",
    "get_weather",
    '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_calls>',
  ),
  info(
    "granite",
    "Granite 3.0, granite-20b-fc",
    "get_weather",
    '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
  ),
  info(
    "function-gemma",
    "FunctionGemma",
    "get_weather",
    "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>",
  ),
  info(
    "gemma4",
    "Gemma 4",
    "get_weather",
    '<|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|>',
  ),
  info(
    "anthropic-xml",
    "Claude-style XML (Kimi K2.5/2.6, MiniMax via Ollama, DeepSeek-V4, proxies)",
    "Read",
    '<function_calls>\n<invoke name="Read">\n<parameter name="file_path">/a.md</parameter>\n</invoke>\n</function_calls>',
  ),
  info(
    "command-r",
    "Cohere Command-R / R+ / Aya",
    "get_weather",
    'Action: ```json\n[\n    {\n        "tool_name": "get_weather",\n        "parameters": {"city": "Paris"}\n    }\n]\n```',
  ),
  info(
    "command-r7b",
    "Cohere Command R7B, Command A",
    "get_weather",
    '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>',
  ),
  info("xlam", "Salesforce xLAM", "get_weather", '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'),
  info(
    "seed-oss",
    "ByteDance Seed-OSS",
    "get_weather",
    "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>",
  ),
  info(
    "functionary",
    "Functionary v3.1 / v3.2",
    "get_weather",
    '<function=get_weather>{"city": "Paris"}</function>',
  ),
  info(
    "step3",
    "Step3",
    "get_weather",
    '<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">\n<steptml:parameter name="city">Paris</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>',
  ),
  info(
    "internlm",
    "InternLM 2.5, Intern-S1",
    "get_weather",
    '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>',
  ),
  info(
    "jamba",
    "AI21 Jamba",
    "get_weather",
    '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>',
  ),
  info(
    "phi4-functools",
    "Phi-4-mini, FireFunction v2",
    "get_weather",
    'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
  ),
  info(
    "hunyuan",
    "Tencent Hunyuan HY3",
    "get_weather",
    "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call></tool_calls>",
  ),
  info(
    "lfm2",
    "Liquid LFM2",
    "get_weather",
    '<|tool_call_start|>[get_weather(location="Paris")]<|tool_call_end|>',
  ),
  info("olmo3", "Olmo 3", "get_weather", '<function_calls>get_weather(location="NYC")</function_calls>'),
  info(
    "nemotron",
    "Nemotron v2",
    "get_weather",
    '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL>',
  ),
  info(
    "apertus",
    "Swiss AI Apertus",
    "get_weather",
    '<|tools_prefix|>[{"get_weather": {"city": "Paris"}}]<|tools_suffix|>',
  ),
  info(
    "apriel",
    "ServiceNow Apriel 1.5 (same text as Jamba: reported as `jamba` while both are enabled)",
    "get_weather",
    '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>',
  ),
  info(
    "longcat",
    "Meituan LongCat-Flash",
    "get_weather",
    '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</longcat_tool_call>',
  ),
  info(
    "gigachat3",
    "Sber GigaChat 3",
    "get_weather",
    'function call<|role_sep|>\n{"name": "get_weather", "arguments": {"city": "Paris"}}',
  ),
  info(
    "kimi-k3",
    "Moonshot Kimi K3 (XTML)",
    "get_weather",
    '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
  ),
  info(
    "cline-xml",
    "Cline / Roo-Code prompt XML (opt-in)",
    "read_file",
    "<read_file>\n<path>src/main.js</path>\n</read_file>",
  ),
])

/** Every format id, in catalogue order. */
export const FORMAT_IDS: readonly FormatId[] = formats.map((f) => f.id)
