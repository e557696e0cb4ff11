/**
 * Peer parser test strings and real leaks, one row each: the text, where it comes from, and what the
 * detector must do with it. Texts are the peers' model outputs as their tests write them (the vLLM,
 * SGLang, llama.cpp and Ollama test suites) or as the bug report quotes them. None of them is in the
 * labelled corpus (`fixtures/corpus.jsonl`).
 *
 * `markup`: `format:tool` of each reported markup in order (`?` when no name is read); `[]` means
 * plain prose or code, shown unchanged. `recover`: the tools of the recoverable markup under the
 * default policy (default: every named tool of `markup`). `tools`: the tools offered (default: the
 * named tools of `markup`).
 */
export interface PeerString {
  readonly source: string
  readonly text: string
  readonly markup: readonly string[]
  readonly tools?: readonly string[]
  readonly recover?: readonly (string | undefined)[]
  readonly visible?: string
  /**
   * `false`: the text in an inline code span is not all code. A line in it that opens a fence after
   * the first interrupts the paragraph (CommonMark §4.5), so what follows that fenced block is prose.
   */
  readonly inlineTwin?: false
}

const VLLM = "vllm-project/vllm"
const VLLM_TP = `${VLLM} tests/entrypoints/openai/tool_parsers`
// vLLM tests/tool_parsers/test_granite_pythonic_tool_parser.py: Granite 3.3 / 4.0 H-Small's bare calls.
const GRANITE_PY = `${VLLM} tests/tool_parsers/test_granite_pythonic_tool_parser.py`
const LLAMA_CPP = "ggml-org/llama.cpp"
const SGLANG_GIGACHAT = "sgl-project/sglang python/sglang/srt/function_call/gigachat3_detector.py"
const K3 = `${VLLM} tests/tool_use/test_kimi_k3_tool_parser.py`
// The test's own builders: `<|open|>TAG …<|sep|>` … `<|close|>TAG<|sep|>`.
const k3Arg = (key: string, type: string, value: string): string =>
  `<|open|>argument key="${key}" type="${type}"<|sep|>${value}<|close|>argument<|sep|>`
const k3Call = (tool: string, ...args: string[]): string =>
  `<|open|>call tool="${tool}" index="1"<|sep|>${args.join("")}<|close|>call<|sep|>`
const k3Tools = (...calls: string[]): string => `<|open|>tools<|sep|>${calls.join("")}<|close|>tools<|sep|>`
const k3Response = (content: string): string => `<|open|>response<|sep|>${content}<|close|>response<|sep|>`
const HARMONY_ANALYSIS =
  '<|channel|>analysis<|message|>User asks: "What is the weather in Tokyo?" We need to use get_current_weather tool.<|end|>'
const harmonyCall = (name: string, constrain: string, args: string): string =>
  `<|start|>assistant<|channel|>commentary to=functions.${name}${constrain}<|message|>${args}<|call|>`
const OLLAMA = "ollama/ollama model/parsers"
const SGLANG = "sgl-project/sglang test/srt/test_function_call_parser.py"

// vLLM tests/tool_use/test_qwen3coder_tool_parser.py
const QWEN3 = `${VLLM} tests/tool_use/test_qwen3coder_tool_parser.py`
const dallas =
  "<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n"
const qwenWeather = `<tool_call>\n<function=get_current_weather>\n${dallas}</function>\n</tool_call>`

// vLLM tests/tool_use/test_kimi_k2_tool_parser.py
const KIMI = `${VLLM} tests/tool_use/test_kimi_k2_tool_parser.py`
// vLLM tests/tool_use/test_glm4_moe_tool_parser.py
const GLM = `${VLLM} tests/tool_use/test_glm4_moe_tool_parser.py`
const MISTRAL = `${VLLM} tests/tool_use/test_mistral_tool_parser.py`
const SEED = `${VLLM} tests/tool_use/test_seed_oss_tool_parser.py`
const XLAM = `${VLLM} tests/tool_use/test_xlam_tool_parser.py`
const HCX_TP = `${VLLM} tests/tool_parsers/test_hyperclovax_seed_think_tool_parser.py`
const HCX_RP = `${VLLM} tests/reasoning/test_hyperclovax_seed_think_reasoning_parser.py`
const DSV31 = `${VLLM} tests/tool_use/test_deepseekv31_tool_parser.py`
const MINIMAX_M2 = `${VLLM} tests/tool_use/test_minimax_m2_tool_parser.py`
const SF = '{"city": "San Francisco", "state": "CA", "unit": "celsius"}'
// vLLM tests/tool_parsers/test_hy_v4_tool_parser.py: every special token carries the vocabulary's suffix.
const HYV4 = `${VLLM} tests/tool_parsers/test_hy_v4_tool_parser.py`
const hyArg = (key: string, value: string, sfx = ":opensource"): string =>
  `<arg_key${sfx}>${key}</arg_key${sfx}><arg_value${sfx}>${value}</arg_value${sfx}>`
const hyCall = (tool: string, args = "", sfx = ":opensource"): string =>
  `<tool_call${sfx}>${tool}${args}</tool_call${sfx}>`
const hyBlock = (body: string, sfx = ":opensource"): string => `<tool_calls${sfx}>${body}</tool_calls${sfx}>`
const DALLAS_JSON = '{"city": "Dallas", "state": "TX", "unit": "fahrenheit"}'

// vLLM tests/tool_parsers/test_plamo3_tool_parser.py: the test's builders over the parser's tags.
const PLAMO3 = `${VLLM} tests/tool_parsers/test_plamo3_tool_parser.py`
const plamoTag = (edge: "begin" | "end", tag: string): string => `<|plamo:${edge}_${tag}:plamo|>`
const PLAMO_TAGS = {
  requests: plamoTag("begin", "tool_requests"),
  request: plamoTag("begin", "tool_request"),
  name: plamoTag("begin", "tool_name"),
  nameEnd: plamoTag("end", "tool_name"),
}
const plamoCall = (tool: string, args: string): string =>
  `${PLAMO_TAGS.request}${PLAMO_TAGS.name}${tool}${PLAMO_TAGS.nameEnd}${plamoTag("begin", "tool_arguments")}<|plamo:constrain|>json<|plamo:msg|>${args}${plamoTag("end", "tool_arguments")}${plamoTag("end", "tool_request")}`
const plamoRequests = (...calls: string[]): string =>
  `${PLAMO_TAGS.requests}${calls.join("")}${plamoTag("end", "tool_requests")}<|plamo:tag|>`
// vLLM tests/parser/engine/test_inkling.py: typed blocks between special tokens.
const INKLING = `${VLLM} tests/parser/engine/test_inkling.py`
const INK = {
  model: "<|message_model|>",
  text: "<|content_text|>",
  think: "<|content_thinking|>",
  end: "<|end_message|>",
}
const inklingCall = (tool: string, args: string): string =>
  `<|content_invoke_tool_json|>{"name":"${tool}","args":${args}}${INK.end}`
const MINICPM5 = `${VLLM} tests/tool_parsers/test_minicpm5xml_tool_parser.py`
// vLLM tests/tool_parsers/test_k2_horizon_tool_parser.py: the test's builders.
const K2H = `${VLLM} tests/tool_parsers/test_k2_horizon_tool_parser.py`
const ifmGroup = (calls: string[], prefix = "", suffix = ""): string =>
  `${prefix}<ifm|tool_calls>${calls.join("\n")}</ifm|tool_calls>${suffix}`
const ifmXml = (tool: string, args: [string, string][], typed = false): string =>
  `<ifm|tool_call>${tool}${args
    .map(
      ([k, v]) =>
        `<ifm|arg_key>${k}</ifm|arg_key>${typed ? `<ifm|arg_type>${k === "limit" ? "integer" : "string"}</ifm|arg_type>` : ""}<ifm|arg_value>${v}</ifm|arg_value>`,
    )
    .join("")}</ifm|tool_call>`
const ifmJson = (tool: string, args: string): string =>
  `<ifm|tool_call>{"name": "${tool}", "arguments": ${args}}</ifm|tool_call>`
// vLLM tests/tool_parsers/test_solar_open2_tool_parser.py: one envelope a call, `<|tool_arg:…|>` arguments.
const SOLAR2 = `${VLLM} tests/tool_parsers/test_solar_open2_tool_parser.py`
const solarArg = (key: string, value: string): string =>
  `<|tool_arg:start|>${key}<|tool_arg:value|>${value}<|tool_arg:end|>\n`
const solarCall = (tool: string, ...args: string[]): string =>
  `<|tool_call:start|>${tool}\n${args.join("")}<|tool_call:end|>`
// vLLM tests/parser/engine/test_berrylm.py's WEATHER_CALL (Qwen3-Coder's text).
const BERRY_WEATHER =
  "<tool_call>\n<function=get_weather>\n<parameter=city>Tokyo</parameter>\n<parameter=days>3</parameter>\n</function>\n</tool_call>"
// vLLM tests/parser/engine/test_muse_glimmer.py: an ATEM call (Anthropic XML under the `atem:` prefix).
const atemCall = (tool: string, key: string, value: string): string =>
  `<atem:function_calls>\n<atem:invoke name="${tool}">\n<atem:parameter name="${key}">${value}</atem:parameter>\n</atem:invoke>\n</atem:function_calls>`
// vLLM tests/parser/engine/test_minimax_m3.py's tool_block with one element.
const M3NS = "]<]minimax[>["
const m3Block = (tool: string, key: string, value: string): string =>
  `${M3NS}<tool_call>\n${M3NS}<invoke name="${tool}">${M3NS}<${key}>${value}${M3NS}</${key}>${M3NS}</invoke>\n${M3NS}</tool_call>`

// --- Parsers checked for held-out formats (vLLM `tests/tool_parsers/`, SGLang `function_call/`) -----
const PANGU = `${VLLM} tests/tool_parsers/test_pangu_tool_parser.py`
const OPENPANGU2 = `${VLLM} tests/tool_parsers/test_openpanguv2_tool_parser.py`
const CWM = `${VLLM} tests/tool_parsers/test_cwm_tool_parser.py`
const DOTS = `${VLLM} tests/tool_parsers/test_dots_tool_parser.py`
const G4_BARE = `${VLLM} tests/tool_parsers/test_gemma4_regex_and_bare_calls.py`
const IQUEST2 = `${VLLM} tests/tool_parsers/test_iquest_coder_v2_tool_parser.py`
const RWKV = `${VLLM} tests/tool_parsers/test_rwkv_tool_parser.py`
// The tests' builders: iQuest V2's call block and RWKV's Markdown call (`json.dumps(…, indent=2)`).
const iquestCall = (tool: string, ...pairs: [string, string][]): string =>
  `<iquestcoder_tool_call>${tool}${pairs.map(([k, v]) => `<arg_key>${k}</arg_key><arg_value>${v}</arg_value>`).join("")}</iquestcoder_tool_call>`
const rwkvCall = (tool: string, args: Record<string, string>): string =>
  `**Tool Call:**\n\`\`\`json\n${JSON.stringify({ name: tool, arguments: args }, null, 2)}\n\`\`\``
const dotsInvoke = (tool: string, key: string, value: string): string =>
  `<invoke name="${tool}"><parameter name="${key}">${value}</parameter></invoke>`

export const PEER_STRINGS: readonly PeerString[] = [
  // --- Hunyuan HY v4: the family's suffixed tokens -----------------------------------------------------
  {
    source: `${HYV4} (test_values_typed_from_schema)`,
    text: `sure!${hyBlock(hyCall("get_weather", hyArg("city", "Beijing") + hyArg("days", "3")))}`,
    markup: ["hunyuan:get_weather"],
    visible: "sure!",
  },
  {
    source: `${HYV4} (test_multiple_calls_keep_their_order, a zero-argument call)`,
    text: hyBlock(hyCall("get_weather", hyArg("city", "A")) + hyCall("get_current_date")),
    markup: ["hunyuan:get_weather", "hunyuan:get_current_date"],
    visible: "",
  },
  {
    source: `${HYV4} (test_regex_metacharacters_in_suffix)`,
    text: hyBlock(hyCall("get_current_date", "", ":a+b(c"), ":a+b(c"),
    markup: ["hunyuan:get_current_date"],
    visible: "",
  },
  {
    source: `${HYV4} (missing_tool_calls_end: the section never closes)`,
    text: `<tool_calls:opensource>${hyCall("get_current_date")}`,
    markup: ["hunyuan:get_current_date"],
    visible: "",
  },
  {
    source: `${HYV4} (test_structural_tokens_split_across_deltas: whitespace in the section)`,
    text: `hi${hyBlock(`\n  ${hyCall("get_weather", hyArg("city", "Beijing"))}`)}`,
    markup: ["hunyuan:get_weather"],
    visible: "hi",
  },
  // --- DeepSeek DSML as V4 writes it in the wild ----------------------------------------------------
  {
    source: "zed-industries/zed#59503 (DSML with a space after the marker, `calls` envelope)",
    text: '<｜DSML｜ calls>\n<｜DSML｜ invoke name="edit_file">\n<｜DSML｜ parameter name="edits" string="false">[{"old_text":"before","new_text":"after"}]</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>',
    markup: ["deepseek-dsml:edit_file"],
    visible: "",
  },
  {
    source: "lsdefine/GenericAgent#804 (DSML with U+2016 bars)",
    text: 'ok\n<‖DSML‖tool_calls>\n<‖DSML‖invoke name="exec">\n<‖DSML‖parameter name="cmd" string="true">ls</‖DSML‖parameter>\n</‖DSML‖invoke>\n</‖DSML‖tool_calls>',
    markup: ["deepseek-dsml:exec"],
    visible: "ok\n",
  },
  {
    source: "AgentFlocks/flocks PR #687 (DSML with spaced ASCII bars, `tool_use` envelope)",
    text: '< | DSML | tool_use>< | DSML | invoke name="exec">< | DSML | parameter name="cmd" string="true">ls</ | DSML | parameter></ | DSML | invoke></ | DSML | tool_use>',
    markup: ["deepseek-dsml:exec"],
    visible: "",
  },
  // --- Kimi K3 markers with detokenizer spaces (vLLM's kimi_k3 parser reads `<|open|>\s*call…`) ------
  {
    source: `${K3} (spaces between special tokens)`,
    text: '<|open|> tools <|sep|><|open|> call tool="python" index="1" <|sep|><|open|> argument key="code" type="string" <|sep|>print(1)<|close|> argument <|sep|><|close|> call <|sep|><|close|> tools <|sep|>',
    markup: ["kimi-k3:python"],
    visible: "",
  },
  // --- An envelope token naming a tool not offered in this step ---------------------------------------
  {
    source: "AI SDK activeTools: Qwen3-Coder without its opener, naming a tool outside the step",
    text: "Sure.\n<function=Read>\n<parameter=file_path>\n/a.md\n</parameter>\n</function>\n</tool_call>",
    tools: ["Bash", "Glob"],
    markup: ["qwen3-coder:Read"],
    recover: [],
    visible: "Sure.\n",
  },
  {
    source: "ollama/ollama#13968 (a bare JSON call after a stray character, then its envelope's closer)",
    text: '.{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    markup: ["llama3-json:get_weather"],
    visible: ".",
  },
  // --- Qwen3-Coder ------------------------------------------------------------------------------
  { source: QWEN3, text: "This is a test response without any tool calls", markup: [] },
  { source: QWEN3, text: qwenWeather, markup: ["qwen3-coder:get_current_weather"], visible: "" },
  {
    source: QWEN3,
    text: `Sure! Let me check the weather for you.${qwenWeather}`,
    markup: ["qwen3-coder:get_current_weather"],
    visible: "Sure! Let me check the weather for you.",
  },
  {
    source: QWEN3,
    text: '<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n<parameter=dimensions>\n{"width": 10, \n "height": 20}\n</parameter>\n<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>',
    markup: ["qwen3-coder:calculate_area"],
  },
  {
    source: QWEN3,
    text: `${qwenWeather}\n${qwenWeather.replace("Dallas", "Orlando").replace("TX", "FL")}`,
    markup: ["qwen3-coder:get_current_weather", "qwen3-coder:get_current_weather"],
    visible: "\n",
  },
  {
    source: QWEN3,
    text: 'Let me calculate that area for you.<tool_call>\n<function=calculate_area>\n<parameter=shape>\ncircle\n</parameter>\n<parameter=dimensions>\n{"radius": 15.5}\n</parameter>\n<parameter=precision>\n3\n</parameter>\n</function>\n</tool_call>',
    markup: ["qwen3-coder:calculate_area"],
    visible: "Let me calculate that area for you.",
  },
  {
    source: `${QWEN3} (fallback, no tags)`,
    text: "<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n</function>",
    markup: ["qwen3-coder:get_current_weather"],
  },
  {
    source: `${QWEN3} (type conversion)`,
    text: '<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n<parameter=float_param>\n3.14\n</parameter>\n<parameter=bool_param>\ntrue\n</parameter>\n<parameter=str_param>\nhello world\n</parameter>\n<parameter=obj_param>\n{"key": "value"}\n</parameter>\n</function>\n</tool_call>',
    markup: ["qwen3-coder:test_types"],
  },
  {
    source: `${QWEN3} (missing </parameter>)`,
    text: "Let me check the weather for you:\n<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:get_current_weather"],
    visible: "Let me check the weather for you:\n",
  },
  {
    source: `${QWEN3} (streaming incremental)`,
    text: "I'll check the weather.<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:get_current_weather"],
    visible: "I'll check the weather.",
  },

  // --- Hermes -----------------------------------------------------------------------------------
  {
    source: `${VLLM} tests/entrypoints/openai/tool_parsers/test_hermes_tool_parser.py (reasoning closed, no opener)`,
    text: '用户可能希望得到一个具体的例子。\n\n总结下来，给出一个范例参数。\n</think>\n\n<tool_call>\n{"name": "internet_search", "arguments": {"question": "5MW燃气轮机设计参数 空气流量 压气机压比 转速"}}\n</tool_call>\n\n ',
    markup: ["hermes:internet_search"],
  },

  // --- Mistral ----------------------------------------------------------------------------------
  { source: MISTRAL, text: "This is a test", markup: [] },
  {
    source: MISTRAL,
    text: '[TOOL_CALLS][{"name": "add", "arguments":{"a": 3.5, "b": 4}}]',
    markup: ["mistral:add"],
    visible: "",
  },
  {
    source: MISTRAL,
    text: `[TOOL_CALLS] [{"name": "get_current_weather", "arguments":${SF}}]`,
    markup: ["mistral:get_current_weather"],
  },
  {
    source: `${MISTRAL} (arguments before name)`,
    text: `[TOOL_CALLS] [{"arguments":${SF}, "name": "get_current_weather"}]`,
    markup: ["mistral:get_current_weather"],
  },
  {
    source: `${MISTRAL} (arguments before name, a name inside the arguments)`,
    text: '[TOOL_CALLS] [{"arguments":{"name": "John Doe"}, "name": "get_age"}]',
    markup: ["mistral:get_age"],
  },
  {
    source: `${MISTRAL} (v11 tokenizer)`,
    text: '[TOOL_CALLS]add{"a": 3.5, "b": 4}',
    markup: ["mistral:add"],
    visible: "",
  },
  {
    source: `${MISTRAL} (v11 tokenizer)`,
    text: `[TOOL_CALLS]get_current_weather${SF}`,
    markup: ["mistral:get_current_weather"],
  },
  {
    source: "ml-explore/mlx-lm#1374 (the v11+ shape its mistral parser reads, [TOOL_CALLS] stripped)",
    text: 'calculator[ARGS]{"expression": "2+3"}',
    markup: ["mistral:calculator"],
    visible: "",
  },
  {
    // After prose the name was already shown when `[ARGS]` tells it apart: the rest is withheld.
    source: "ml-explore/mlx-lm#1374 (the same stripped call after prose: a known limit)",
    text: 'Let me compute that.\ncalculator[ARGS]{"expression": "2+3"}',
    tools: ["calculator"],
    markup: ["mistral:?"],
    recover: [],
    visible: "Let me compute that.\ncalculator",
  },
  {
    source: "ml-explore/mlx-lm#1374 (stripped, at the start, a tool that is not offered)",
    text: 'lookup[ARGS]{"q": "x"}',
    tools: ["calculator"],
    markup: ["mistral:?"],
    recover: [],
    visible: "lookup",
  },
  {
    source: `${MISTRAL} (streaming, odd spacing)`,
    text: '[TOOL_CALLS]  [ {"name":"add" , "arguments" : {"a": 3, "b": 4} } ]',
    markup: ["mistral:add"],
  },
  {
    source: `${MISTRAL} (streaming, two calls, the second object left unclosed)`,
    text: `[TOOL_CALLS][{"name": "add", "arguments": {"a": 3.5, "b": 4}}, {"name": "get_current_weather", "arguments":${SF}]`,
    markup: ["mistral:add", "mistral:get_current_weather"],
  },

  // --- Kimi K2 ----------------------------------------------------------------------------------
  {
    source: KIMI,
    text: 'I\'ll help you check the weather. <|tool_calls_section_begin|> <|tool_call_begin|>\nfunctions.get_weather:0 <|tool_call_argument_begin|> {"city": "Beijing"} <|tool_call_end|> <|tool_calls_section_end|>',
    markup: ["kimi-k2:get_weather"],
    visible: "I'll help you check the weather. ",
  },
  {
    source: KIMI,
    text: 'I\'ll help you check the weather. <|tool_calls_section_begin|> <|tool_call_begin|>\nfunctions.get_weather:0 <|tool_call_argument_begin|> {"city": "Beijing"} <|tool_call_end|> <|tool_call_begin|>\nfunctions.get_weather:1 <|tool_call_argument_begin|> {"city": "Shanghai"} <|tool_call_end|> <|tool_calls_section_end|>',
    markup: ["kimi-k2:get_weather", "kimi-k2:get_weather"],
    visible: "I'll help you check the weather. ",
  },
  {
    source: KIMI,
    text: 'I\'ll get the weather and news for LA today. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"latitude": 34.0522, "longitude": -118.2437}<|tool_call_end|><|tool_call_begin|>functions.get_news:1<|tool_call_argument_begin|>{"content": "Los Angeles today"}<|tool_call_end|><|tool_calls_section_end|>',
    markup: ["kimi-k2:get_weather", "kimi-k2:get_news"],
  },
  {
    source: KIMI,
    text: 'I\'ll help you with multiple tasks. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "New York"}<|tool_call_end|><|tool_call_begin|>functions.get_news:1<|tool_call_argument_begin|>{"topic": "technology"}<|tool_call_end|><|tool_call_begin|>functions.send_email:2<|tool_call_argument_begin|>{"to": "user@example.com", "subject": "Daily Update"}<|tool_call_end|><|tool_calls_section_end|>',
    markup: ["kimi-k2:get_weather", "kimi-k2:get_news", "kimi-k2:send_email"],
  },
  {
    source: `${KIMI} (mixed spacing)`,
    text: "Mixed spacing test. <|tool_calls_section_begin|> <|tool_call_begin|> functions.test:0 <|tool_call_argument_begin|> {} <|tool_call_end|><|tool_call_begin|>functions.test2:1<|tool_call_argument_begin|>{}<|tool_call_end|> <|tool_calls_section_end|>",
    markup: ["kimi-k2:test", "kimi-k2:test2"],
    visible: "Mixed spacing test. ",
  },
  {
    source: `${KIMI} (angle brackets in the JSON)`,
    text: 'I need to process HTML content. <|tool_calls_section_begin|><|tool_call_begin|>functions.process_html:0<|tool_call_argument_begin|>{"html": "<div>content</div>", "text": "normal text"}<|tool_call_end|><|tool_calls_section_end|>',
    markup: ["kimi-k2:process_html"],
  },
  {
    source: `${KIMI} (newlines in the JSON)`,
    text: 'I need to process formatted JSON. <|tool_calls_section_begin|><|tool_call_begin|>functions.process_data:0<|tool_call_argument_begin|>{\n  "name": "test",\n  "value": 123,\n  "nested": {\n    "key": "value"\n  }\n}<|tool_call_end|><|tool_calls_section_end|>',
    markup: ["kimi-k2:process_data"],
  },
  {
    source: `${KIMI} (invalid JSON in the first call)`,
    text: 'I\'ll help you check the weather. <|tool_calls_section_begin|> <|tool_call_begin|>\nfunctions.invalid_get_weather:0 <|tool_call_argument_begin|> {"city": "Beijing" <|tool_call_end|> <|tool_call_begin|>\nfunctions.valid_get_weather:1 <|tool_call_argument_begin|> {"city": "Shanghai"} <|tool_call_end|> <|tool_calls_section_end|>',
    markup: ["kimi-k2:invalid_get_weather", "kimi-k2:valid_get_weather"],
  },

  // --- GLM-4.5 ----------------------------------------------------------------------------------
  {
    source: GLM,
    text: "<tool_call>get_current_weather\n    <arg_key>city</arg_key>\n    <arg_value>Dallas</arg_value>\n    <arg_key>state</arg_key>\n    <arg_value>TX</arg_value>\n    <arg_key>unit</arg_key>\n    <arg_value>fahrenheit</arg_value>\n    </tool_call>",
    markup: ["glm:get_current_weather"],
    visible: "",
  },
  {
    source: GLM,
    text: "<tool_call>get_current_weather\n    <arg_key>city</arg_key>\n    <arg_value>Dallas</arg_value>\n    </tool_call>\n    <tool_call>get_current_weather\n    <arg_key>city</arg_key>\n    <arg_value>Orlando</arg_value>\n    </tool_call>",
    markup: ["glm:get_current_weather", "glm:get_current_weather"],
  },
  {
    source: GLM,
    text: "I'll help you check the weather. <tool_call>get_current_weather\n    <arg_key>city</arg_key>\n    <arg_value>Seattle</arg_value>\n    </tool_call>",
    markup: ["glm:get_current_weather"],
    visible: "I'll help you check the weather. ",
  },
  {
    source: `${GLM} (after a thinking block)`,
    text: "<think>I want to get the weather.</think>\n\nI will help you get the weather.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>\n</tool_call>",
    markup: ["glm:get_weather"],
    visible: "<think>I want to get the weather.</think>\n\nI will help you get the weather.\n",
  },
  {
    source: `${GLM} (malformed arg key)`,
    text: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Seattle</arg_value>\n<arg_key>incomplete_arg\n<arg_value>value</arg_value>\n</tool_call>",
    markup: ["glm:get_weather"],
  },
  {
    source: `${GLM} (no arguments)`,
    text: "<tool_call>get_current_time\n</tool_call>",
    markup: ["glm:get_current_time"],
  },
  {
    source: `${GLM} (prose between two calls)`,
    text: "I will help you get the weather info.\n\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>\n\nmeaningwhile, I will also check the weather in Shanghai.\n\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Shanghai</arg_value>\n</tool_call>",
    markup: ["glm:get_weather", "glm:get_weather"],
    visible:
      "I will help you get the weather info.\n\n\n\nmeaningwhile, I will also check the weather in Shanghai.\n\n",
  },
  {
    source: `${GLM} (streaming: an opener with nothing after it yet, at the end)`,
    text: "I will help you get the weather<tool_call>",
    markup: [],
  },
  {
    source: `${GLM} (incomplete: no </tool_call>)`,
    text: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>",
    markup: ["glm:get_weather"],
  },

  // --- Seed-OSS ---------------------------------------------------------------------------------
  {
    source: SEED,
    text: "<seed:think>\n</seed:cot_budget_reflect>\n</seed:cot_budget_reflect>\nThe current thinking budget is 0, so I will directly start answering the question.\n</seed:think>\n<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n</function>\n</seed:tool_call>",
    markup: ["seed-oss:get_weather"],
  },
  {
    source: `${SEED} (a rehearsal of the call inside reasoning, then the call)`,
    text: '<seed:think>\nGot it. Let me format the function call correctly. The format is <seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>. Wait, but does the unit parameter accept "celsius"? Let me go with that.</seed:think><seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>',
    markup: ["seed-oss:get_weather", "seed-oss:get_weather"],
    recover: ["get_weather", "get_weather"],
  },

  // --- xLAM -------------------------------------------------------------------------------------
  { source: XLAM, text: "This is a test", markup: [] },
  {
    source: XLAM,
    text: `[{"name": "get_current_weather", "arguments": ${DALLAS_JSON}}, {"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}]`,
    markup: ["xlam:get_current_weather", "xlam:get_current_weather"],
  },
  {
    source: `${XLAM} (after a thinking block)`,
    text: `<think>I'll help you with that.</think>[{"name": "get_current_weather", "arguments": ${DALLAS_JSON}}]`,
    markup: ["xlam:get_current_weather"],
    visible: "<think>I'll help you with that.</think>",
  },
  // --- Reasoning opened by the chat template: a closer with no opener, then the answer ----------------
  {
    source: `${HCX_TP} test_json_after_think_end`,
    text: 'thinking</think>\n\n[{"name": "get_current_weather", "parameters": {"location": "Seoul"}}]',
    markup: ["xlam:get_current_weather"],
    visible: "thinking</think>\n\n",
  },
  {
    source: `${HCX_TP} TestStreamingJSON.test_json_after_think_end`,
    text: '</think>\n\n[{"name": "get_current_weather", "parameters": {"location": "Busan"}}]',
    markup: ["xlam:get_current_weather"],
    visible: "</think>\n\n",
  },
  {
    source: `${HCX_RP} test_with_think_end_splits`,
    text: "step by step</think>\n\nfinal answer",
    markup: [],
  },
  {
    source: `${VLLM} tests/reasoning/test_qwen3_reasoning_parser.py WITHOUT_START_TOKEN`,
    text: "This is a reasoning section</think>This is the rest",
    markup: [],
  },
  {
    source: `${VLLM} tests/reasoning/test_minimax_m2_reasoning_parser.py DOUBLE_END_TOKEN`,
    text: "reasoning</think>content A</think>content B",
    markup: [],
  },
  {
    source: `${VLLM} tests/reasoning/test_minimax_m2_reasoning_parser.py CODE_IN_REASONING`,
    text: "```python\nprint('hello')\n```</think>Here is the code.",
    markup: [],
  },
  {
    source: `${XLAM} (a [TOOL_CALLS] token after prose)`,
    text: `I'll check the weather for you.[TOOL_CALLS][{"name": "get_current_weather", "arguments": ${DALLAS_JSON}}]`,
    markup: ["mistral:get_current_weather"],
    visible: "I'll check the weather for you.",
  },

  // --- DeepSeek V3.1 ----------------------------------------------------------------------------
  {
    source: DSV31,
    text: 'normal text<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    markup: ["deepseek-v3:foo"],
    visible: "normal text",
  },
  {
    source: DSV31,
    text: 'some prefix text<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜><｜tool▁call▁begin｜>bar<｜tool▁sep｜>{"y":2}<｜tool▁call▁end｜><｜tool▁calls▁end｜> some suffix text',
    markup: ["deepseek-v3:foo", "deepseek-v3:bar"],
    visible: "some prefix text some suffix text",
  },

  // --- MiniMax M2 -------------------------------------------------------------------------------
  {
    source: MINIMAX_M2,
    text: '<minimax:tool_call><invoke name="get_weather"><parameter name="city">Seattle</parameter></invoke></minimax:tool_call>',
    markup: ["minimax-m2:get_weather"],
  },
  {
    source: MINIMAX_M2,
    text: '<minimax:tool_call><invoke name="search_web"><parameter name="query_tag">["technology", "events"]</parameter><parameter name="query_list">["OpenAI", "latest", "release"]</parameter></invoke><invoke name="search_web"><parameter name="query_tag">["technology", "events"]</parameter><parameter name="query_list">["Gemini", "latest", "release"]</parameter></invoke></minimax:tool_call>',
    markup: ["minimax-m2:search_web", "minimax-m2:search_web"],
  },
  {
    source: `${MINIMAX_M2} (extra attributes in the tags, vllm#32827)`,
    text: '<minimax:tool_call><invoke name="execute_command" description="Run a command"><parameter name="command" type="string">ls -la</parameter></invoke></minimax:tool_call>',
    markup: ["minimax-m2:execute_command"],
  },
  {
    source: `${MINIMAX_M2} (extra attributes, non-streaming)`,
    text: '<minimax:tool_call><invoke name="test_func" extra="ignored"><parameter name="arg1" type="string">value1</parameter><parameter name="arg2" description="(e.g. example)">value2</parameter></invoke></minimax:tool_call>',
    markup: ["minimax-m2:test_func"],
  },
  // --- llama.cpp tests/chat/*.cpp (per-template parser tests; `special_function` is their tool) ---
  {
    source: `${LLAMA_CPP} test_llama_3_x_parser`,
    text: '{"name": "special_function", "parameters": {"arg1": 1}}',
    markup: ["llama3-json:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_llama_3_x_parser (built-in tools)`,
    text: "<|python_tag|>code_interpreter.call(code=\"print('hey')\")",
    markup: ["llama3-json:code_interpreter"],
  },
  {
    source: `${LLAMA_CPP} test_llama_3_x_parser (built-in tools)`,
    text: "<|python_tag|>python.call(code=\"print('hey')\")",
    markup: ["llama3-json:python"],
  },
  {
    source: `${LLAMA_CPP} test_functionary_v3_2_parser (text, then a call)`,
    text: 'all\nHello, world!\nnono\nWhat\'s up?>>>special_function\n{"arg1": 1}\n',
    markup: ["functionary:special_function"],
    visible: "all\nHello, world!\nnono\nWhat's up?\n",
  },
  {
    source: `${LLAMA_CPP} test_functionary_v3_2_parser (text only)`,
    text: "all\nHello, world!\nWhat's up?",
    markup: [],
  },
  {
    source: `${LLAMA_CPP} test_gpt_oss_parser (a call after analysis)`,
    text: '<|channel|>analysis<|message|>I\'m\nthinking<|end|><|start|>assistant<|channel|>commentary to=functions.special_function <|constrain|>json<|message|>{"arg1": 1}',
    markup: ["harmony:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_gpt_oss_parser (no <|constrain|>, cut in the payload)`,
    text: "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>commentary to=functions.special_function<|message|>{\"arg1",
    markup: ["harmony:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_gpt_oss_parser (a call in the analysis channel)`,
    text: '<|channel|>analysis<|message|>I\'m\nthinking<|end|><|start|>assistant<|channel|>analysis to=functions.special_function <|constrain|>json<|message|>{"arg1": 1}',
    markup: ["harmony:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_gpt_oss_parser (commentary text, then a call)`,
    text: "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>commentary<|message|>Hello, world!\nWhat's up?<|end|><|start|>assistant<|channel|>commentary to=functions.special_function <|constrain|>json<|message|>{\"arg1\": 1}",
    markup: ["harmony:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_gpt_oss_parser (the recipient in the role header, no <|start|>)`,
    text: ' to=functions.special_function<|channel|>commentary <|constrain|>json<|message|>{"arg1": 1}',
    markup: ["harmony:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_gpt_oss_parser (the recipient in the role header)`,
    text: '<|channel|>analysis<|message|>I\'m\nthinking<|end|><|start|>assistant to=functions.special_function<|channel|>analysis <|constrain|>json<|message|>{"arg1": 1}',
    markup: ["harmony:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_gpt_oss_parser (final answer only: its header withheld, the answer shown)`,
    text: "<|channel|>analysis<|message|>I'm\nthinking<|end|><|start|>assistant<|channel|>final<|message|>Hello, world!\nWhat's up?",
    markup: ["harmony:?"],
    visible: "<|channel|>analysis<|message|>I'm\nthinking<|end|>Hello, world!\nWhat's up?",
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (QwQ: reasoning opened by the template)`,
    text: 'I\'m\nthinking</think>\n<tool_call>{"name": "special_function", "arguments": {"arg1": 1}}</tool_call>',
    markup: ["hermes:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser`,
    text: 'Hello, world!\nWhat\'s up?<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>',
    markup: ["hermes:special_function"],
    visible: "Hello, world!\nWhat's up?",
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (cut inside the JSON)`,
    text: 'Let\'s call something\n<tool_call>{"name"',
    markup: ["hermes:?"],
    recover: [],
    visible: "Let's call something\n",
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (<function=NAME>{json})`,
    text: '<function=special_function>{"arg1": 1}</function>',
    markup: ["functionary:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (<function name="NAME">)`,
    text: '<function name="special_function">\n{"arg1": 1}\n</function>',
    markup: ["functionary:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (<tool>)`,
    text: '<tool>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</tool>',
    markup: ["hermes:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (<tools>)`,
    text: '<tools>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</tools>',
    markup: ["hermes:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (<response>)`,
    text: '<response>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</response>',
    markup: ["hermes:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (<json>)`,
    text: '<json>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</json>',
    markup: ["hermes:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (<xml>)`,
    text: '<xml>\n  {\n    "name": "special_function", "arguments": {"arg1": 1}\n  }\n</xml>',
    markup: ["hermes:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (<JSON>)`,
    text: '<JSON>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</JSON>',
    markup: ["hermes:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (bare JSON at the start)`,
    text: '{"name": "special_function", "arguments": {"arg1": 1}}',
    markup: ["llama3-json:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (bare JSON at the start, a line break inside)`,
    text: '{\n  "name": "special_function", "arguments": {"arg1": 1}}',
    markup: ["llama3-json:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (a fenced call: an example under our fence rule)`,
    text: '```json\n  {"name": "special_function", "arguments": {"arg1": 1}}\n```',
    markup: [],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (<function_call> in a fence: an example under our fence rule)`,
    text: '```json\n\n                    <function_call> {"name": "special_function", "arguments": {"arg1": 1}} \n                    </function_call> \n``` ',
    markup: [],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (two calls)`,
    text: '<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>\n<tool_call>\n{"name": "python", "arguments": {"code":"print(\'hello\')"}}\n</tool_call>',
    markup: ["hermes:special_function", "hermes:python"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (two <function=NAME>{json} calls)`,
    text: '<function=special_function>{"arg1": 1}</function>\n<function=python>{"code":"print(\'hello\')"}</function>',
    markup: ["functionary:special_function", "functionary:python"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser ("This is not a tool call:" then a call object)`,
    text: 'This is not a tool call:\n{"name": "special_function", "arguments": {"arg1": 1}}',
    markup: ["llama3-json:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_hermes_2_pro_parser (reasoning, then an answer)`,
    text: "<think>I'm\nthinking</think>Hello, world!\nWhat's up?",
    markup: [],
  },
  {
    // Indented by 20 spaces after a blank line: an indented code block (CommonMark §4.4), so an
    // example under the promise that code is never flagged, although llama.cpp parses it.
    source: `${LLAMA_CPP} test_deepseek_r1_parser (indented: code under our Markdown rule)`,
    text: ' \n                    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>test\n```json\n{ "success" : true } \n```<｜tool▁call▁end｜> ',
    markup: [],
  },
  {
    source: `${LLAMA_CPP} test_deepseek_r1_parser (indented at the start: code under our Markdown rule)`,
    text: '                    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>special_function\n```json\n{"arg1": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n',
    markup: [],
  },
  {
    source: `${LLAMA_CPP} test_deepseek_r1_parser (unindented)`,
    text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>test\n```json\n{ "success" : true } \n```<｜tool▁call▁end｜> ',
    markup: ["deepseek-v3:test"],
  },
  {
    source: `${LLAMA_CPP} test_deepseek_r1_parser (after reasoning)`,
    text: '<think>I\'m\nthinking</think>\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>special_function\n```json\n{"arg1": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    markup: ["deepseek-v3:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_deepseek_r1_parser (<｜tool▁calls｜>, no per-call marker)`,
    text: '<｜tool▁calls｜>function<｜tool▁sep｜>special_function\n```json\n{"arg1": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    markup: ["deepseek-v3:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_command_r7b_parser (a call after reasoning)`,
    text: '<|START_THINKING|>I\'m\nthinking<|END_THINKING|><|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "special_function", "parameters": {"arg1": 1}}\n]<|END_ACTION|>',
    markup: ["command-r7b:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_command_r7b_parser (cut inside the tool name)`,
    text: '<|START_THINKING|>I\'m\nthinking<|END_THINKING|><|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "special',
    markup: ["command-r7b:?"],
    recover: [],
  },
  {
    source: `${LLAMA_CPP} test_command_r7b_parser (a response block)`,
    text: "<|START_THINKING|>I'm\nthinking<|END_THINKING|><|START_RESPONSE|>Hello, world!\nWhat's up?<|END_RESPONSE|>",
    markup: [],
  },
  // --- SGLang test/srt/test_function_call_parser.py ---------------------------------------------
  {
    source: `${SGLANG} TestPythonicDetector`,
    text: "This is just normal text without any tool calls.",
    markup: [],
  },
  {
    source: `${SGLANG} TestPythonicDetector (after prose)`,
    text: "Here's a tool call: [get_weather(location='New York', unit='celsius')]",
    markup: ["pythonic:get_weather"],
    visible: "Here's a tool call: ",
  },
  {
    source: `${SGLANG} TestPythonicDetector (after prose)`,
    text: "This is some text before [get_weather(location='London')]",
    markup: ["pythonic:get_weather"],
    visible: "This is some text before ",
  },
  {
    source: `${SGLANG} TestPythonicDetector (cut inside the arguments)`,
    text: "Let me check the weather: [get_weather(location=",
    markup: ["pythonic:get_weather"],
    visible: "Let me check the weather: ",
  },
  {
    source: `${SGLANG} TestPythonicDetector`,
    text: "[search(query='python programming')]",
    markup: ["pythonic:search"],
    visible: "",
  },
  {
    source: `${SGLANG} TestPythonicDetector (text after the call)`,
    text: "[get_weather(location='Tokyo')] Here's the forecast:",
    markup: ["pythonic:get_weather"],
    visible: " Here's the forecast:",
  },
  {
    source: `${SGLANG} TestPythonicDetector (two lists, prose between)`,
    text: "[get_weather(location='Berlin')] and [search(query='restaurants')]",
    markup: ["pythonic:get_weather", "pythonic:search"],
    visible: " and ",
  },
  {
    source: `${SGLANG} TestPythonicDetector (a lone bracket at the end)`,
    text: "Let's try this: [",
    markup: [],
    tools: ["get_weather", "search"],
  },
  {
    source: `${SGLANG} TestPythonicDetector (nested brackets)`,
    text: "[get_weather(location='New York', unit='celsius', data=[1, 2, 3])]",
    markup: ["pythonic:get_weather"],
  },
  {
    source: `${SGLANG} TestPythonicDetector (nested dicts)`,
    text: "[search(query='test', config={'options': [1, 2], 'nested': {'key': 'value'}})]",
    markup: ["pythonic:search"],
  },
  {
    source: `${SGLANG} TestPythonicDetector (two calls, nested brackets)`,
    text: "[get_weather(location='Paris', data=[10, 20]), search(query='test', filters=['a', 'b'])]",
    markup: ["pythonic:get_weather", "pythonic:search"],
  },
  {
    source: `${SGLANG} TestPythonicDetector (<|python_start|> after prose)`,
    text: "Here's a call: <|python_start|>[get_weather(location='Tokyo', data=[1, 2, 3])]<|python_end|>",
    markup: ["pythonic:get_weather"],
    visible: "Here's a call: ",
  },
  {
    source: `${SGLANG} TestPythonicDetector (<|python_start|> between sentences)`,
    text: "User wants to get the weather in Mars. <|python_start|>[get_weather(location='Mars', unit='celsius')]<|python_end|> In this way we will get the weather in Mars.",
    markup: ["pythonic:get_weather"],
    visible: "User wants to get the weather in Mars.  In this way we will get the weather in Mars.",
  },
  {
    source: `${SGLANG} TestMistralDetector (brackets and a fence inside a JSON string)`,
    text: '[TOOL_CALLS] [{"name":"make_next_step_decision", "arguments":{"decision":"","content":"```\\nTOOL: Access a weather API or service\\nOBSERVATION: Retrieve the current weather data\\nANSWER: The weather is as follows: [City Name] - [Weather Conditions] - [Temperature]\\n```"}}]',
    markup: ["mistral:make_next_step_decision"],
    visible: "",
  },
  {
    source: `${SGLANG} TestMistralDetector (text before)`,
    text: 'Here is some text before the tool call: [TOOL_CALLS] [{"name":"make_next_step_decision", "arguments":{"decision":"ANSWER", "content":"The answer is 42"}}]',
    markup: ["mistral:make_next_step_decision"],
    visible: "Here is some text before the tool call: ",
  },
  {
    source: `${SGLANG} TestBaseFormatDetector (two objects, comma-separated, in one envelope)`,
    text: '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_tourist_attractions", "arguments": {"city": "London"}}</tool_call>',
    markup: ["hermes:get_weather", "hermes:get_tourist_attractions"],
  },
  {
    source: `${SGLANG} TestBaseFormatDetector (a tool that is not offered, cut off)`,
    text: '<tool_call>{"name": "invalid_tool", ',
    tools: ["get_weather", "get_tourist_attractions"],
    markup: ["hermes:invalid_tool"],
    recover: [],
  },
  {
    source: `${SGLANG} TestLlama32Detector`,
    text: '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    markup: ["llama3-json:get_weather"],
  },
  {
    source: `${SGLANG} TestLlama32Detector (\`;\` between calls)`,
    text: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}};{"name": "get_tourist_attractions", "parameters": {"city": "Paris"}}',
    markup: ["llama3-json:get_weather", "llama3-json:get_tourist_attractions"],
  },
  {
    source: `${SGLANG} TestLlama32Detector (<|python_tag|> before each call)`,
    text: '<|python_tag|>{"name": "get_weather", "parameters": {}}<|python_tag|>{"name": "get_tourist_attractions", "parameters": {}}',
    markup: ["llama3-json:get_weather", "llama3-json:get_tourist_attractions"],
  },
  {
    source: `${SGLANG} TestLlama32Detector (text after the call)`,
    text: '{"name": "get_weather", "parameters": {}} Some follow-up text',
    markup: ["llama3-json:get_weather"],
    visible: " Some follow-up text",
  },
  {
    source: `${SGLANG} TestLlama32Detector (<|python_tag|> after prose)`,
    text: 'Some intro. <|python_tag|>{"name": "get_weather", "parameters": {}}',
    markup: ["llama3-json:get_weather"],
    visible: "Some intro. ",
  },
  {
    source: `${SGLANG} TestKimiK2Detector`,
    text: '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_call_begin|>functions.get_tourist_attractions:1<|tool_call_argument_begin|>{"city": "London"}<|tool_call_end|><|tool_calls_section_end|>',
    markup: ["kimi-k2:get_weather", "kimi-k2:get_tourist_attractions"],
  },
  {
    source: `${SGLANG} TestKimiK2Detector (cut inside the arguments)`,
    text: '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"',
    markup: ["kimi-k2:get_weather"],
  },
  {
    source: `${SGLANG} TestDeepSeekV3Detector (multi-token chunks)`,
    text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city":"Shanghai"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_tourist_attractions\n```json\n{"city": "Beijing"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    markup: ["deepseek-v3:get_weather", "deepseek-v3:get_tourist_attractions"],
    visible: "",
  },
  {
    source: `${SGLANG} TestQwen3CoderDetector (no parameters)`,
    text: "<tool_call>\n<function=get_current_weather>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:get_current_weather"],
  },
  {
    source: `${SGLANG} TestQwen3CoderDetector (special characters in a value)`,
    text: "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas->TX\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:get_current_weather"],
  },
  {
    source: `${SGLANG} TestQwen3CoderDetector (cut after a parameter)`,
    text: "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX",
    markup: ["qwen3-coder:get_current_weather"],
  },
  {
    source: `${SGLANG} TestQwen3CoderDetector (indented lines inside the call)`,
    text: "I'll check the weather.<tool_call>\n        <function=get_current_weather>\n        <parameter=city>\n        Dallas\n        </parameter>\n        <parameter=state>\n        TX\n        </parameter>\n        </function>\n        </tool_call>",
    markup: ["qwen3-coder:get_current_weather"],
    visible: "I'll check the weather.",
  },
  {
    source: `${SGLANG} TestQwen3CoderDetector (two indented calls, text between)`,
    text: '<tool_call>\n        <function=get_current_weather>\n        <parameter=city>\n        Dallas\n        </parameter>\n        </function>\n        </tool_call>\n        Some text in between.\n        <tool_call>\n        <function=calculate_area>\n        <parameter=shape>\n        circle\n        </parameter>\n        <parameter=dimensions>\n        {"radius": 5}\n        </parameter>\n        </function>\n        </tool_call>',
    markup: ["qwen3-coder:get_current_weather", "qwen3-coder:calculate_area"],
  },
  {
    source: `${SGLANG} TestGlm4MoeDetector (two calls glued)`,
    text: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2024-06-27</arg_value>\n</tool_call><tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Shanghai</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2024-06-28</arg_value>\n</tool_call>",
    markup: ["glm:get_weather", "glm:get_weather"],
    visible: "",
  },
  {
    source: `${SGLANG} TestGlm4MoeDetector (a tool that is not offered)`,
    text: "<tool_call>invalid_func\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>",
    tools: ["get_weather"],
    markup: ["glm:invalid_func"],
    recover: [],
  },
  {
    source: `${SGLANG} TestGlm4MoeDetector (escaped JSON in a value)`,
    text: '<tool_call>todo_write\n<arg_key>todos</arg_key>\n<arg_value>[{\\"id\\": \\"1\\", \\"task\\": \\"Check for hard-coded issues in the backend code\\", \\"status\\": \\"in_progress\\"}]</arg_value>\n</tool_call>',
    markup: ["glm:todo_write"],
  },
  {
    source: `${SGLANG} TestJsonArrayParser (two calls in a list)`,
    text: '[{"name": "get_weather", "parameters": {"location": "Tokyo"}},{"name": "get_weather", "parameters": {"location": "Paris"}}]',
    markup: ["xlam:get_weather", "xlam:get_weather"],
  },
  {
    source: `${SGLANG} TestJsonArrayParser (leading and trailing whitespace)`,
    text: '  [{"name": "get_weather", "parameters": {"location": "Tokyo"}}]  ',
    markup: ["xlam:get_weather"],
  },
  {
    source: `${SGLANG} TestJsonArrayParser (a \`}\` inside a string)`,
    text: '[{"name": "get_weather", "parameters": {"location": "has } inside"}}]',
    markup: ["xlam:get_weather"],
  },
  // --- vLLM granite_pythonic: a bare Python call a line (Granite 3.3, 4.0 H-Small) ----------------
  {
    source: `${GRANITE_PY} test_single_call`,
    text: 'get_weather(location="San Francisco", unit="celsius")',
    markup: ["granite:get_weather"],
    visible: "",
  },
  {
    source: `${GRANITE_PY} test_multiple_calls`,
    text: 'get_weather(location="Paris")\nsearch_web(query="vLLM release notes")',
    markup: ["granite:get_weather", "granite:search_web"],
    visible: "\n",
  },
  {
    source: `${GRANITE_PY} test_no_args_call`,
    text: "list_files()",
    markup: ["granite:list_files"],
    visible: "",
  },
  {
    source: `${GRANITE_PY} test_plain_text_passthrough`,
    text: "I don't need to call any tools to answer this.",
    markup: [],
    tools: ["get_weather", "search_web", "list_files"],
  },
  {
    source: `${GRANITE_PY} test_mixed_content_and_call`,
    text: 'Sure, let me check the weather.\nget_weather(location="London")',
    markup: ["granite:get_weather"],
    visible: "Sure, let me check the weather.\n",
  },
  {
    source: `${GRANITE_PY} test_streaming_single_call`,
    text: 'get_weather(location="Berlin")\n',
    markup: ["granite:get_weather"],
    visible: "\n",
  },
  {
    source: `${GRANITE_PY} test_streaming_plain_text`,
    text: "Hello, how can I help you today?\n",
    markup: [],
    tools: ["get_weather", "search_web", "list_files"],
  },
  {
    source: `${GRANITE_PY} (two calls in a list, as the whole answer)`,
    text: '[get_weather(city="Paris"), get_time(tz="CET")]',
    markup: ["pythonic:get_weather", "pythonic:get_time"],
    visible: "",
  },
  {
    source: `${GRANITE_PY} (two calls on a line, its list's brackets dropped)`,
    text: 'get_weather(city="Paris"), get_time(tz="CET")',
    markup: ["granite:get_weather", "granite:get_time"],
    visible: "",
  },
  {
    source: `${GRANITE_PY} (the call named in prose: the line is not a call)`,
    text: "list_files() is the function that lists the files.",
    markup: [],
    tools: ["list_files"],
  },
  // --- vLLM tests/entrypoints/openai/tool_parsers: Llama 3 JSON, Llama 4 pythonic --------------
  {
    source: `${VLLM_TP}/test_llama3_json_tool_parser.py (prose around the call)`,
    text: 'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?',
    markup: ["llama3-json:getOpenIncidentsTool"],
    visible: "Here is the result:  Would you like to know more?",
  },
  {
    source: `${VLLM_TP}/test_llama3_json_tool_parser.py`,
    text: '{"name": "searchTool", "parameters": {"query": "test query", "limit": 10}}',
    markup: ["llama3-json:searchTool"],
  },
  {
    source: `${VLLM_TP}/test_llama3_json_tool_parser.py (invalid JSON in the arguments)`,
    text: '{"name": "invalidTool", "parameters": {invalid json}',
    tools: ["searchTool"],
    markup: ["llama3-json:invalidTool"],
    recover: [],
  },
  {
    source: `${VLLM_TP}/test_llama3_json_tool_parser.py ("arguments")`,
    text: '{"name": "searchTool", "arguments": {"query": "test"}}',
    markup: ["llama3-json:searchTool"],
  },
  {
    source: `${VLLM_TP}/test_llama3_json_tool_parser.py (three, \`;\` with spaces)`,
    text: '{"name": "searchTool", "parameters": {"query": "test1"}} ; {"name": "getOpenIncidentsTool", "parameters": {}} ; {"name": "searchTool", "parameters": {"query": "test2"}}',
    markup: ["llama3-json:searchTool", "llama3-json:getOpenIncidentsTool", "llama3-json:searchTool"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_llama3_json_tool_parser.py (three after prose, prose after)`,
    text: 'Here are the results: {"name": "searchTool", "parameters": {"query": "test1"}}; {"name": "getOpenIncidentsTool", "parameters": {}}; {"name": "searchTool", "parameters": {"query": "test2"}} Would you like to know more?',
    markup: ["llama3-json:searchTool", "llama3-json:getOpenIncidentsTool", "llama3-json:searchTool"],
    visible: "Here are the results:  Would you like to know more?",
  },
  {
    source: `${VLLM_TP}/test_llama3_json_tool_parser.py (deep nesting)`,
    text: '{"name": "simpleTool", "parameters": {"value": "test"}}; {"name": "complexTool", "parameters": {"config": {"database": {"connection": {"pool": {"size": 10}}}}}}',
    markup: ["llama3-json:simpleTool", "llama3-json:complexTool"],
  },
  {
    source: `${VLLM_TP}/test_llama3_json_tool_parser.py (braces and escaped quotes in strings)`,
    text: '{"name": "parserTool", "parameters": {"text": "He said \\"Hello {world}\\" [complex]", "nested": {"inner": "more {brackets}"}}}',
    markup: ["llama3-json:parserTool"],
    visible: "",
  },
  { source: `${VLLM_TP}/test_llama4_pythonic_tool_parser.py`, text: "How can I help you today?", markup: [] },
  {
    source: `${VLLM_TP}/test_llama4_pythonic_tool_parser.py (more types)`,
    text: "[register_user(name='Doe', age=9, address={'city': 'LA', 'state': 'CA'}, role=None, passed_test=True, aliases=['John', 'Johnny'])]",
    markup: ["pythonic:register_user"],
  },
  {
    source: `${VLLM_TP}/test_llama4_pythonic_tool_parser.py (no arguments)`,
    text: "[get_weather()]",
    markup: ["pythonic:get_weather"],
  },
  {
    source: `${VLLM_TP}/test_llama4_pythonic_tool_parser.py (an empty dict)`,
    text: "[do_something_cool(additional_data={})]",
    markup: ["pythonic:do_something_cool"],
  },
  {
    source: `${VLLM_TP}/test_llama4_pythonic_tool_parser.py (escaped quotes)`,
    text: "[get_weather(city='Martha\\'s Vineyard', metric='\\\"cool units\\\"')]",
    markup: ["pythonic:get_weather"],
  },
  {
    source: `${VLLM_TP}/test_llama4_pythonic_tool_parser.py (two calls, no spaces)`,
    text: "[get_weather(city='LA',metric='C'),register_user(name='Doe',age=9)]",
    markup: ["pythonic:get_weather", "pythonic:register_user"],
  },
  {
    source: `${VLLM_TP}/test_llama4_pythonic_tool_parser.py (<|python_start|>, three calls)`,
    text: "<|python_start|>[get_weather(city='LA', metric='C'), get_weather(), do_something_cool(steps=[])]<|python_end|>",
    markup: ["pythonic:get_weather", "pythonic:get_weather", "pythonic:do_something_cool"],
  },
  {
    source: `${VLLM_TP}/test_llama4_pythonic_tool_parser.py (<|python_start|> with no closer)`,
    text: "<|python_start|>[get_weather(city='LA', metric='C'),register_user(name='Doe', age=9)]",
    markup: ["pythonic:get_weather", "pythonic:register_user"],
  },
  {
    source: `${VLLM_TP}/test_llama4_pythonic_tool_parser.py (regex-hostile prose)`,
    text: "hello world[A(A=\t)A(A=,\t\t)A(A=,\t",
    markup: [],
    tools: ["get_weather"],
  },
  // --- vLLM common_tests configs: Granite, Phi-4-mini, InternLM2 -------------------------------
  {
    source: `${VLLM_TP}/test_granite_tool_parser.py`,
    text: '<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
    markup: ["granite:get_weather"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_granite_tool_parser.py (two calls, pretty-printed)`,
    text: '<|tool_call|> [\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n]',
    markup: ["granite:get_weather", "granite:get_time"],
  },
  {
    source: `${VLLM_TP}/test_granite_tool_parser.py (Granite 3.1 <tool_call>, no closer)`,
    text: '<tool_call> [{\n  "name": "test_function",\n  "arguments": {\n    "quoted": "He said \\"hello\\"",\n    "path": "C:\\\\Users\\\\file.txt",\n    "unicode": "emoji: 🎉"\n  }\n}]',
    markup: ["hermes:test_function"],
  },
  {
    source: `${VLLM_TP}/test_granite_tool_parser.py (prose around the call)`,
    text: 'Let me check the weather for you.\n<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\nI\'ll get that information.',
    markup: ["granite:get_weather"],
    visible: "Let me check the weather for you.\n\nI'll get that information.",
  },
  {
    source: `${VLLM_TP}/test_granite_tool_parser.py (malformed: cut in the arguments)`,
    text: '<|tool_call|> [{"name": "func", "arguments": {',
    markup: ["granite:func"],
  },
  {
    source: `${VLLM_TP}/test_granite_tool_parser.py (malformed: JSON but no call)`,
    text: 'Some text [{"name": "func"}]',
    tools: ["func"],
    markup: [],
  },
  {
    source: `${VLLM_TP}/test_granite_tool_parser.py (malformed: arguments not a dict)`,
    text: '[{"name": "func", "arguments": "not a dict"}]',
    tools: ["func"],
    markup: [],
  },
  {
    source: `${VLLM_TP}/test_phi4mini_tool_parser.py`,
    text: 'functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
    markup: ["phi4-functools:get_weather"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_phi4mini_tool_parser.py (two calls)`,
    text: 'functools[\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n]',
    markup: ["phi4-functools:get_weather", "phi4-functools:get_time"],
  },
  {
    source: `${VLLM_TP}/test_phi4mini_tool_parser.py (prose around the call)`,
    text: 'Let me check the weather for you.\nfunctools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\nWould you like to know more?',
    markup: ["phi4-functools:get_weather"],
    visible: "Let me check the weather for you.\n\nWould you like to know more?",
  },
  {
    source: `${VLLM_TP}/test_phi4mini_tool_parser.py (malformed: empty functools, then text)`,
    text: "functools[] This is just text",
    tools: ["func"],
    markup: [],
  },
  {
    source: `${VLLM_TP}/test_phi4mini_tool_parser.py (malformed: no JSON)`,
    text: "functools[ This is just text ]",
    tools: ["func"],
    markup: [],
  },
  {
    source: `${VLLM_TP}/test_internlm2_tool_parser.py`,
    text: '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>',
    markup: ["internlm:get_weather"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_internlm2_tool_parser.py (prose before)`,
    text: 'Let me check the weather for you. <|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>',
    markup: ["internlm:get_weather"],
    visible: "Let me check the weather for you. ",
  },
  {
    source: `${VLLM_TP}/test_internlm2_tool_parser.py (malformed: not JSON inside)`,
    text: "<|action_start|><|plugin|>not json<|action_end|>",
    tools: ["func"],
    markup: ["internlm:?", "internlm:?", "internlm:?"],
    recover: [],
    visible: "not json",
  },
  {
    source: `${VLLM_TP}/test_internlm2_tool_parser.py (malformed: <|plugin|> missing)`,
    text: '<|action_start|>{"name": "func"}',
    tools: ["func"],
    markup: ["internlm:?"],
    recover: [],
    visible: '{"name": "func"}',
  },
  // --- vLLM: Hunyuan A13B (Jamba's shape), Step3, Olmo 3 ------------------------------------------
  {
    source: `${VLLM_TP}/test_hunyuan_a13b_tool_parser.py (Hunyuan A13B writes Jamba's shape)`,
    text: '<tool_calls>[{"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}, {"name": "register_user", "arguments": {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"}, "role": null, "passed_test": true, "aliases": ["John", "Johnny"]}}]</tool_calls>',
    markup: ["jamba:get_weather", "jamba:register_user"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_hunyuan_a13b_tool_parser.py (prose before)`,
    text: 'I will call the tool now. <tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>',
    markup: ["jamba:get_weather"],
    visible: "I will call the tool now. ",
  },
  {
    source: `${VLLM_TP}/test_hunyuan_a13b_tool_parser.py (prose after, an answer tag)`,
    text: '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>\n</answer>',
    markup: ["jamba:get_weather"],
    visible: "\n</answer>",
  },
  {
    source: `${VLLM_TP}/test_step3_tool_parser.py (no function<｜tool_sep｜>)`,
    text: '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
    markup: ["step3:get_weather"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_step3_tool_parser.py (two calls, <｜tool_sep｜> between them)`,
    text: '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_sep｜><｜tool_call_begin｜><steptml:invoke name="get_time"><steptml:parameter name="timezone">Asia/Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
    markup: ["step3:get_weather", "step3:get_time"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_step3_tool_parser.py (no arguments)`,
    text: '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="refresh"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
    markup: ["step3:refresh"],
  },
  {
    source: `${VLLM_TP}/test_step3_tool_parser.py (prose around the call)`,
    text: 'Let me check the weather for you.\n\n<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>\n\nI\'ll get that information.',
    markup: ["step3:get_weather"],
    visible: "Let me check the weather for you.\n\n\n\nI'll get that information.",
  },
  {
    source: `${VLLM_TP}/test_step3_tool_parser.py (malformed: cut after the invoke)`,
    text: '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="func">',
    markup: ["step3:func"],
  },
  {
    source: `${VLLM_TP}/test_step3_tool_parser.py (malformed: no envelope)`,
    text: '<｜tool_call_begin｜><steptml:invoke name="func"></steptml:invoke><｜tool_call_end｜>',
    markup: ["step3:func"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_olmo3_tool_parser.py`,
    text: "<function_calls>get_weather(city='San Francisco', metric='celsius')</function_calls>",
    markup: ["olmo3:get_weather"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_olmo3_tool_parser.py (JSON literals)`,
    text: "<function_calls>register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, role=null, passed_test=true, aliases=['John', 'Johnny'])</function_calls>",
    markup: ["olmo3:register_user"],
  },
  {
    source: `${VLLM_TP}/test_olmo3_tool_parser.py (no arguments)`,
    text: "<function_calls>get_weather()</function_calls>",
    markup: ["olmo3:get_weather"],
  },
  {
    source: `${VLLM_TP}/test_olmo3_tool_parser.py (three calls, one a line)`,
    text: "<function_calls>get_weather(city='San Francisco', metric='celsius')\nget_weather()\ndo_something_cool(steps=[])</function_calls>",
    markup: ["olmo3:get_weather", "olmo3:get_weather", "olmo3:do_something_cool"],
  },
  // --- Ollama model/parsers ---------------------------------------------------------------------
  {
    source: `${OLLAMA}/qwen3coder_bare_test.go`,
    text: "<function=exec_command>\n<parameter=cmd>\nls -la\n</parameter>\n</function>",
    markup: ["qwen3-coder:exec_command"],
    visible: "",
  },
  {
    source: `${OLLAMA}/qwen3coder_bare_test.go (an orphan </tool_call> after the call)`,
    text: "<function=exec_command>\n<parameter=cmd>\nls -la\n</parameter>\n</function>\n</tool_call>\ndone",
    markup: ["qwen3-coder:exec_command"],
    visible: "\ndone",
  },
  {
    source: `${OLLAMA}/qwen3coder_bare_test.go (prose with an unclosed header)`,
    text: "the tag <function=foo is documented here",
    tools: ["exec_command"],
    markup: [],
  },
  {
    source: `${OLLAMA}/qwen3coder_bare_test.go (garbage payload)`,
    text: "<function=<<not xml>></function>",
    tools: ["exec_command"],
    markup: [],
  },
  {
    source: `${OLLAMA}/ministral_test.go`,
    text: '[TOOL_CALLS]get_weather[ARGS]{"location": "San Francisco"}',
    markup: ["mistral:get_weather"],
    visible: "",
  },
  {
    source: `${OLLAMA}/ministral_test.go (nested objects)`,
    text: '[TOOL_CALLS]create_entities[ARGS]{"entities": [{"entityType": "Person", "name": "Jack", "observations": ["Works as a baker at Big Baker Co."]}]}',
    markup: ["mistral:create_entities"],
  },
  {
    source: `${OLLAMA}/ministral_test.go (braces and escaped quotes in strings)`,
    text: '[TOOL_CALLS]format[ARGS]{"template": "Hello {name}!", "query": "say \\"hello\\""}',
    markup: ["mistral:format"],
    visible: "",
  },
  {
    source: `${OLLAMA}/ministral_test.go (a tool that is not offered)`,
    text: '[TOOL_CALLS]unknown_tool[ARGS]{"a": 1}',
    tools: ["known_tool"],
    markup: ["mistral:unknown_tool"],
    recover: [],
  },
  {
    source: `${OLLAMA}/ministral_test.go (invalid JSON)`,
    text: "[TOOL_CALLS]test[ARGS]{invalid json}",
    markup: ["mistral:test"],
  },
  {
    source: `${OLLAMA}/ministral_test.go (backslashes in a value)`,
    text: '[TOOL_CALLS]path[ARGS]{"dir": "C:\\\\Users\\\\test"}',
    markup: ["mistral:path"],
  },
  // --- vLLM: LongCat-Flash and GigaChat 3 (families added to the catalogue from these tests) -------
  {
    source: `${VLLM_TP}/test_longcat_tool_parser.py`,
    text: '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</longcat_tool_call>',
    markup: ["longcat:get_weather"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_longcat_tool_parser.py (two calls)`,
    text: '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</longcat_tool_call>\n<longcat_tool_call>{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}</longcat_tool_call>',
    markup: ["longcat:get_weather", "longcat:get_time"],
    visible: "\n",
  },
  {
    source: `${VLLM_TP}/test_longcat_tool_parser.py (prose around the call)`,
    text: 'Let me check the weather for you.\n<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</longcat_tool_call>\nHere is the result.',
    markup: ["longcat:get_weather"],
    visible: "Let me check the weather for you.\n\nHere is the result.",
  },
  {
    source: `${VLLM_TP}/test_longcat_tool_parser.py (malformed: cut in the arguments)`,
    text: '<longcat_tool_call>{"name": "func", "arguments": {',
    markup: ["longcat:func"],
  },
  {
    source: `${VLLM_TP}/test_longcat_tool_parser.py (malformed: not JSON)`,
    text: "Some text with <longcat_tool_call>invalid json",
    tools: ["func"],
    markup: [],
  },
  {
    source: `${VLLM_TP}/test_gigachat3_tool_parser.py (special tokens stripped)`,
    text: 'function call{"name": "manage_user_memory", "arguments": {"action": "create", "id": "preferences"}}',
    markup: ["gigachat3:manage_user_memory"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_gigachat3_tool_parser.py (nested arguments)`,
    text: 'function call{"name": "manage_user_memory", "arguments": {"action": "create", "id": "preferences", "content": {"short_answers": true, "hate_emojis": true}}}',
    markup: ["gigachat3:manage_user_memory"],
  },
  {
    source: `${SGLANG_GIGACHAT} (the shape its regex reads: <|role_sep|>, a line break, the object)`,
    text: 'function call<|role_sep|>\n{"name": "manage_user_memory", "arguments": {}}',
    markup: ["gigachat3:manage_user_memory"],
    visible: "",
  },
  // --- vLLM: Kimi K3 XTML (a family added to the catalogue from these tests) ----------------------
  {
    source: `${K3} (after a response block; typed arguments)`,
    text: `${k3Response("answer")}${k3Tools(k3Call("calc", k3Arg("x", "number", "1"), k3Arg("flag", "boolean", "true"), k3Arg("text", "string", "raw")))}`,
    // The response block's tokens are the format's own: withheld, its content shown.
    markup: ["kimi-k3:?", "kimi-k3:?", "kimi-k3:calc"],
    visible: "answer",
  },
  {
    source: `${K3} (after reasoning and a response block)`,
    text: `<|open|>think<|sep|>step<|close|>think<|sep|>${k3Response("answer")}${k3Tools(k3Call("calc", k3Arg("x", "number", "1")))}`,
    markup: ["kimi-k3:?", "kimi-k3:?", "kimi-k3:calc"],
    visible: "<|open|>think<|sep|>step<|close|>think<|sep|>answer",
  },
  {
    source: `${K3} (the response opener consumed by the template)`,
    text: `<|close|>response<|sep|>${k3Tools(k3Call("calc", k3Arg("x", "number", "1")))}`,
    markup: ["kimi-k3:?", "kimi-k3:calc"],
    visible: "",
  },
  {
    source: `${K3} (truncated inside the call header)`,
    text: '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="calc" index="1"',
    markup: ["kimi-k3:?", "kimi-k3:calc"],
  },
  {
    source: `${K3} (streamed, the section never closed)`,
    text: `<|open|>response<|sep|>Hi<|open|>tools<|sep|>${k3Call("calc", k3Arg("x", "number", "1"))}`,
    markup: ["kimi-k3:?", "kimi-k3:calc"],
    visible: "Hi",
  },
  {
    source: `${K3} (a call with no arguments)`,
    text: k3Tools(k3Call("calc")),
    markup: ["kimi-k3:calc"],
    visible: "",
  },
  // Live Kimi K3 leaks (can1357/oh-my-pi#8495): the section's end run into the message's tag.
  {
    source: "can1357/oh-my-pi#8495 (leak A: the section end written `<|close|>toolstoolsmessage<|sep|>`)",
    text: '<|open|>toolscall tool="StrReplace" index="1"<|sep|><|open|>argument key="path" type="string"<|sep|>src/rendererargument<|sep|><|close|>call<|sep|><|close|>toolstoolsmessage<|sep|>',
    markup: ["kimi-k3:StrReplace"],
    visible: "",
  },
  {
    source:
      "can1357/oh-my-pi#8495 (the dialect as the report lists it, a path filled in: `<|close|>toolsmessage<|sep|>`)",
    text: '<|open|>toolscall tool="Read" index="1"<|sep|>\n<|open|>argument key="path" type="string"<|sep|>a.ts<|close|>argument<|sep|>\n<|close|>call<|sep|>\n<|close|>toolsmessage<|sep|>',
    markup: ["kimi-k3:Read"],
    visible: "",
  },
  // --- llama.cpp tests/chat: Functionary v3.1, FireFunction v2, Granite, generic ------------------
  {
    source: `${LLAMA_CPP} test_functionary_v3_1_llama_3_1_parser (cut before the closer)`,
    text: '<function=special_function>{"arg1": 1}<',
    markup: ["functionary:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_firefunction_v2_parser (a leading space)`,
    text: ' functools[{"name": "special_function", "arguments": {"arg1": 1}}]',
    markup: ["phi4-functools:special_function"],
    visible: " ",
  },
  {
    source: `${LLAMA_CPP} test_granite_parser (a <response> block of prose is no call)`,
    text: "<think>I'm\nthinking</think><response>Hello, world!\nWhat's up?</response>",
    markup: [],
  },
  {
    source: `${LLAMA_CPP} test_granite_parser (cut after the name)`,
    text: '<|tool_call|>[{"name": "special_function"',
    markup: ["granite:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_granite_parser (after reasoning, cut as a second call starts)`,
    text: '<think>I\'m\nthinking</think><|tool_call|>[{"name": "special_function", "arguments": {"arg1": 1}, {',
    markup: ["granite:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_generic_parser (a call object under "tool_calls", with its id)`,
    text: '{\n  "tool_calls": [\n    {\n      "name": "special_function",\n      "arguments": {\n        "arg1": 1\n      },\n      "id": "123456789"\n    }\n  ]\n}',
    markup: ["llama3-json:special_function"],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} test_generic_parser (under "tool_call", cut in the arguments)`,
    text: '{ "tool_call" : { "name" : "special_function", "arguments" : { "arg',
    markup: ["llama3-json:special_function"],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} test_generic_parser (under "tool_call", cut after the name: no arguments seen yet)`,
    text: '{ "tool_call" : { "name" : "special_function"',
    markup: ["llama3-json:special_function"],
    recover: [],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} test_generic_parser (the call object after prose, a brace inside a string value)`,
    text: 'Sure, running it.\n{"tool_call": {"name": "python", "arguments": {"code": "print({})"}}}\n',
    markup: ["llama3-json:python"],
    visible: "Sure, running it.\n\n",
  },
  {
    source: `${LLAMA_CPP} test_generic_parser (after prose, a tool that is not offered: data)`,
    text: 'Sure, running it.\n{"tool_call": {"name": "rm_rf", "arguments": {}}}',
    tools: ["python"],
    markup: [],
  },
  {
    source: `${LLAMA_CPP} test_generic_parser (a "tool_call" key without arguments: data)`,
    text: '{"tool_call": {"name": "special_function", "note": "later"}}',
    tools: ["special_function"],
    markup: [],
  },
  {
    source: `${LLAMA_CPP} test_functionary_v3_2_parser (the first call without >>>, spaces after it)`,
    text: 'special_function\n{"arg1": 1} \n                    ',
    markup: ["functionary:special_function"],
    visible: " \n                    ",
  },
  {
    source: `${LLAMA_CPP} test_functionary_v3_2_parser (the first call without >>>, then one with it)`,
    text: 'special_function\n{"arg1": 1}>>>python\n{"code": "print(1)"}',
    markup: ["functionary:special_function", "functionary:python"],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} test_functionary_v3_2_parser (a first word that names no offered tool: prose)`,
    text: 'Result\n{"arg1": 1}',
    tools: ["special_function"],
    markup: [],
  },
  {
    // llama.cpp reads raw Python after `python\n`; a bare word then code is what prose looks like.
    source: `${LLAMA_CPP} test_functionary_v3_2_parser (python with raw code: left as text)`,
    text: "python\n# This is a program:\nprint('hey')",
    tools: ["python"],
    markup: [],
  },
  {
    source: `${LLAMA_CPP} test_generic_parser (a grammar-forced response object: data, not a call)`,
    text: '{\n  "response": "Hello, world!\\nWhat\'s up?"\n}',
    tools: ["special_function"],
    markup: [],
  },
  // --- llama.cpp tests/chat: Qwen3-Coder XML ---------------------------------------------------------
  {
    source: `${LLAMA_CPP} test_qwen3_coder_xml_parser (spaces around the tags)`,
    text: " <tool_call>\n<function=special_function> <parameter=arg1>1\n</parameter>\n</function> </tool_call>\n\n\n",
    markup: ["qwen3-coder:special_function"],
    visible: " \n\n\n",
  },
  {
    source: `${LLAMA_CPP} test_qwen3_coder_xml_parser (indented tags)`,
    text: "<tool_call>\n  <function=special_function>\n    <parameter=arg1>\n      1\n    </parameter>\n  </function>\n</tool_call>",
    markup: ["qwen3-coder:special_function"],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} test_qwen3_coder_xml_parser (code with indentation in a value)`,
    text: '<tool_call>\n  <function=code_function>\n    <parameter=code>\ndef hello():\n    print("Hello, World!")\n    return True\n    </parameter>\n  </function>\n</tool_call>',
    markup: ["qwen3-coder:code_function"],
  },
  {
    source: `${LLAMA_CPP} test_qwen3_coder_xml_parser (HTML in a value)`,
    text: "<tool_call>\n  <function=html_function>\n    <parameter=content>\n      <script>alert('xss')</script><img src=x onerror=alert(1)>\n    </parameter>\n  </function>\n</tool_call>",
    markup: ["qwen3-coder:html_function"],
  },
  {
    source: `${LLAMA_CPP} test_qwen3_coder_xml_parser (text before, compact)`,
    text: "I'll help you search for products. <tool_call><function=compact_function><parameter=param>value</parameter></function></tool_call>",
    markup: ["qwen3-coder:compact_function"],
    visible: "I'll help you search for products. ",
  },
  {
    source: `${LLAMA_CPP} test_qwen3_coder_xml_parser (tabs and a carriage return in a value)`,
    text: "<tool_call>\n  <function=control_function>\n    <parameter=text>\nLine1\nLine2\tTabbed\rCarriage return\n\tindented line\n    </parameter>\n  </function>\n</tool_call>",
    markup: ["qwen3-coder:control_function"],
  },
  // --- llama.cpp tests/chat: GLM 4.5/4.6, MiniMax M2, Nemotron v3 -----------------------------------
  {
    source: `${LLAMA_CPP} test_glm_4_5_parser (a leading newline)`,
    text: "\n<tool_call>special_function\n<arg_key>arg1</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
    markup: ["glm:special_function"],
    visible: "\n",
  },
  {
    source: `${LLAMA_CPP} test_glm_4_5_parser (text after the call)`,
    text: "\n<tool_call>special_function\n<arg_key>arg1</arg_key>\n<arg_value>1</arg_value>\n</tool_call>Hello, world!\nWhat's up?",
    markup: ["glm:special_function"],
    visible: "\nHello, world!\nWhat's up?",
  },
  {
    source: `${LLAMA_CPP} test_glm_4_5_parser (interleaved reasoning, then a call)`,
    text: "\n<think>I'm\nthinking</think>Hello, world!\n<think>Thinking2</think>What's up?\n<tool_call>special_function\n<arg_key>arg1</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
    markup: ["glm:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_glm_4_5_parser (quotes in a value)`,
    text: '<tool_call>web_search\n<arg_key>query</arg_key>\n<arg_value>"From Zero" Linkin Park album tracklist complete songs</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>3</arg_value>\n</tool_call>',
    markup: ["glm:web_search"],
  },
  {
    source: `${LLAMA_CPP} test_minimax_m2_parser (reasoning opened by the template, text after)`,
    text: 'I\'m\nthinking</think><minimax:tool_call>\n<invoke name="special_function">\n<parameter name="arg1">1</parameter>\n</invoke>\n</minimax:tool_call>Hello, world!\nWhat\'s up?',
    markup: ["minimax-m2:special_function"],
    visible: "I'm\nthinking</think>Hello, world!\nWhat's up?",
  },
  {
    source: `${LLAMA_CPP} test_minimax_m2_parser (text, a blank line, the call)`,
    text: 'I\'m\nthinking\n</think>\n\nHello, world!\nWhat\'s up?\n\n<minimax:tool_call>\n<invoke name="special_function_with_opt">\n<parameter name="arg1">1</parameter>\n<parameter name="arg2">2</parameter>\n</invoke>\n</minimax:tool_call>\n',
    markup: ["minimax-m2:special_function_with_opt"],
  },
  {
    source: `${LLAMA_CPP} test_nemotron_v3_parser (after reasoning opened by the template)`,
    text: "I'm\nthinking\n</think>\n<tool_call>\n<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_nemotron_v3_parser (no </parameter>, a blank line in the value)`,
    text: '<tool_call>\n<function=python>\n<parameter=code>\ndef hello():\n    print("Hello, world!")\n\nhello()\n</function>\n</tool_call>',
    markup: ["qwen3-coder:python"],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} test_nemotron_v3_parser (a JSON answer after reasoning: data, not a call)`,
    text: 'I need to output the invoice details in JSON\n</think>\n{"amount": 123.45, "date": "2025-12-03"}',
    tools: ["special_function"],
    markup: [],
  },
  // --- Ollama model/parsers/qwen3coder_test.go ------------------------------------------------------
  {
    source: `${OLLAMA}/qwen3coder_test.go (a tag-like envelope around prose is no call)`,
    text: "before1<tool_call>in tool call</tool_call>after1<tool_call>in tool call 2</tool_call>after2",
    tools: ["exec"],
    markup: [],
  },
  {
    source: `${OLLAMA}/qwen3coder_test.go (names with spaces, unquoted)`,
    text: "<tool_call>\n<function=get current temperature>\n<parameter=location with spaces>\nSan Francisco\n</parameter>\n<parameter=unit with spaces>\ncelsius\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:get current temperature"],
    visible: "",
  },
  {
    source: `${OLLAMA}/qwen3coder_test.go (names with spaces, unquoted, no envelope)`,
    text: "<function=get current temperature>\n<parameter=location with spaces>\nSan Francisco\n</parameter>\n</function>",
    markup: ["qwen3-coder:get current temperature"],
    visible: "",
  },
  {
    source: `${OLLAMA}/qwen3coder_test.go (names with quotes)`,
    text: '<tool_call>\n<function="get current temperature">\n<parameter="location with spaces">\nSan Francisco\n</parameter>\n</function>\n</tool_call>',
    markup: ["qwen3-coder:get current temperature"],
  },
  {
    source: `${OLLAMA}/qwen3coder_test.go (angle brackets and ampersands in a value)`,
    text: '<tool_call>\n<function=exec>\n<parameter=command>\nls && echo "a > b and a < b"\n</parameter>\n</function>\n</tool_call>',
    markup: ["qwen3-coder:exec"],
  },
  {
    source: `${OLLAMA}/qwen3coder_test.go (Unicode names)`,
    text: "<tool_call>\n<function=获取天气>\n<parameter=城市>\n北京\n</parameter>\n<parameter=message>\nHello! 你好! 🌟 مرحبا\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:获取天气"],
  },
  // --- vLLM gemma4_utils' fallback tier: Gemma 4 calls without their `<|tool_call>` ----------------------
  {
    source: `${G4_BARE} test_bare_call_after_thought_channel`,
    text: '<|channel>thought\nI need to read the entry source file to inspect the crash point.\n<channel|>call:bash{command:<|"|>cat /work/src/entry.c<|"|>}',
    markup: ["gemma4:bash"],
    visible:
      "<|channel>thought\nI need to read the entry source file to inspect the crash point.\n<channel|>",
  },
  {
    source: `${G4_BARE} test_colon_prefixed_tool_call`,
    text: '<|tool_call>:call:bash{command:<|"|>pytest<|"|>}',
    markup: ["gemma4:bash"],
    visible: "",
  },
  {
    source: `${G4_BARE} test_bare_call_with_leading_whitespace`,
    text: 'some prose\ncall:bash{command:<|"|>make -j8<|"|>}',
    markup: ["gemma4:bash"],
    visible: "some prose\n",
  },
  {
    source: `${G4_BARE} test_fragmented_call_tag_from_multimodal`,
    text: '<call>get_weather{city:<|"|>Paris<|"|>}',
    markup: ["gemma4:get_weather"],
    visible: "",
  },
  {
    source: `${G4_BARE} test_hyphenated_tool_name`,
    text: 'call:web-search{query:<|"|>gemma 4 release<|"|>}',
    markup: ["gemma4:web-search"],
    visible: "",
  },
  {
    source: `${G4_BARE} test_dotted_tool_name`,
    text: 'call:fs.read_file{path:<|"|>/work/Makefile<|"|>}',
    markup: ["gemma4:fs.read_file"],
    visible: "",
  },
  {
    source: `${G4_BARE} test_turn_end_closure_instead_of_tool_call_end`,
    text: '<|tool_call>call:gdb{args:<|"|>-batch -ex run /tmp/poc<|"|>}<turn|>',
    markup: ["gemma4:gdb"],
  },
  {
    source: `${G4_BARE} test_no_tool_call_returns_empty`,
    text: "Just some reasoning text with no call in it.",
    markup: [],
  },
  // --- Poolside Laguna: GLM-4.7's call, a name with spaces ---------------------------------------------
  {
    source: `${VLLM} tests/tool_parsers/test_poolside_v1_tool_parser.py test_function_name_with_internal_whitespace_still_parses (the name offered as written)`,
    text: "<tool_call>  get weather  <arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
    markup: ["glm:get weather"],
    visible: "",
  },
  {
    source: `${VLLM} tests/tool_parsers/test_poolside_v1_tool_parser.py test_whitespace_only_tool_call_name_is_rejected`,
    text: "<tool_call>   </tool_call>",
    markup: [],
    tools: ["get weather"],
  },
  // --- Ollama model/parsers/gemma4_test.go -----------------------------------------------------------
  {
    source: `${OLLAMA}/gemma4_test.go`,
    text: '<|tool_call>call:get_weather{location:<|"|>Paris<|"|>,units:<|"|>metric<|"|>}<tool_call|>',
    markup: ["gemma4:get_weather"],
    visible: "",
  },
  {
    source: `${OLLAMA}/gemma4_test.go (numbers, null, nested objects)`,
    text: "<|tool_call>call:set_optional{value:null,nested:{value:null}}<tool_call|>",
    markup: ["gemma4:set_optional"],
  },
  {
    source: `${OLLAMA}/gemma4_test.go (unescaped quotes and a multi-line Markdown value)`,
    text: '<|tool_call>call:edit{edits:[\n  {newText:<|"|># Gemma4 + openclaude speed optimization guide\n\nUse "nvfp4" only after validating tool calls.\n<|"|>,oldText:<|"|># Gemma4 + openclaude speed optimization guide\n\nUse the default quantization.\n<|"|>}\n]}<tool_call|>',
    markup: ["gemma4:edit"],
    visible: "",
  },
  {
    source: `${OLLAMA}/gemma4_test.go (two calls back to back)`,
    text: '<|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|><|tool_call>call:get_weather{location:<|"|>London<|"|>}<tool_call|>',
    markup: ["gemma4:get_weather", "gemma4:get_weather"],
  },
  {
    source: `${OLLAMA}/gemma4_test.go (after thought)`,
    text: '<|channel>thought\nI need to check the weather<channel|><|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|>',
    markup: ["gemma4:get_weather"],
  },
  {
    source: `${OLLAMA}/gemma4_test.go (text before)`,
    text: 'Let me check that for you.<|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|>',
    markup: ["gemma4:get_weather"],
    visible: "Let me check that for you.",
  },
  {
    source: `${OLLAMA}/gemma4_test.go (no closer at the end)`,
    text: '<|tool_call>call:search{query:<|"|>say "hello" and "bye"<|"|>}',
    markup: ["gemma4:search"],
  },
  {
    source: `${OLLAMA}/gemma4_test.go (Windows path)`,
    text: '<|tool_call>call:open_file{path:<|"|>C:\\users\\bob\\file.txt<|"|>}<tool_call|>',
    markup: ["gemma4:open_file"],
  },
  // --- vLLM tests/tool_use/test_openai_tool_parser.py (rendered with openai_harmony) -----------------
  {
    source: `${VLLM} tests/tool_use/test_openai_tool_parser.py (a final answer after analysis: header and end withheld)`,
    text: `${HARMONY_ANALYSIS}<|start|>assistant<|channel|>final<|message|>It is sunny in Tokyo.<|return|>`,
    tools: ["get_current_weather"],
    markup: ["harmony:?", "harmony:?"],
    visible: `${HARMONY_ANALYSIS}It is sunny in Tokyo.`,
  },
  {
    source: `${VLLM} tests/tool_use/test_openai_tool_parser.py (analysis, then a call)`,
    text: `${HARMONY_ANALYSIS}${harmonyCall("get_current_weather", " <|constrain|>json", '{"location": "Tokyo"}')}`,
    markup: ["harmony:get_current_weather"],
  },
  {
    source: `${VLLM} tests/tool_use/test_openai_tool_parser.py (pretty-printed arguments)`,
    text: `${HARMONY_ANALYSIS}${harmonyCall("get_current_weather", " <|constrain|>json", '{\n"location": "Tokyo"\n}')}`,
    markup: ["harmony:get_current_weather"],
  },
  {
    source: `${VLLM} tests/tool_use/test_openai_tool_parser.py (four calls: no content type, not JSON, no arguments)`,
    text: [
      HARMONY_ANALYSIS,
      harmonyCall("get_current_weather", " <|constrain|>json", '{"location": "Tokyo"}'),
      harmonyCall("no_content_type", "", '{"location": "Tokyo"}'),
      harmonyCall("not_json_no_content_type", "", "foo"),
      harmonyCall("no_args", " <|constrain|>json", ""),
    ].join(""),
    markup: [
      "harmony:get_current_weather",
      "harmony:no_content_type",
      "harmony:not_json_no_content_type",
      // The JSON reader stops at `foo`, which stays visible; its `<|call|>` is withheld on its own.
      "harmony:?",
      "harmony:no_args",
    ],
    recover: ["get_current_weather", "no_content_type", "not_json_no_content_type", "no_args"],
  },
  // --- llama.cpp tests/chat: DeepSeek V3.1, Apertus, LFM2, Ministral 3 --------------------------------
  {
    source: `${LLAMA_CPP} test_deepseek_v3_1_parser`,
    text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"city": "Tokyo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    markup: ["deepseek-v3:get_time"],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} test_deepseek_v3_1_parser (reasoning opened by the template)`,
    text: 'REASONING</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"city": "Tokyo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    markup: ["deepseek-v3:get_time"],
    visible: "REASONING</think>",
  },
  {
    source: `${LLAMA_CPP} test_deepseek_v3_1_parser (content, then two calls)`,
    text: 'CONTENT<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    markup: ["deepseek-v3:get_time", "deepseek-v3:get_weather"],
    visible: "CONTENT",
  },
  {
    // llama.cpp files the first call under reasoning (its template opened the block); the output
    // alone does not say so (no `<think>`), so both calls are reported.
    source: `${LLAMA_CPP} test_deepseek_v3_1_parser (a call inside reasoning the template opened)`,
    text: 'REASONING<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time2<｜tool▁sep｜>{"city": "Tokyo2"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>REASONING</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"city": "Tokyo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    markup: ["deepseek-v3:get_time2", "deepseek-v3:get_time"],
  },
  {
    source: `${LLAMA_CPP} test_apertus_parser`,
    text: '<|tools_prefix|>[{"special_function": {"arg1": 1}}]<|tools_suffix|>',
    markup: ["apertus:special_function"],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} test_apertus_parser (after its reasoning block, text after)`,
    text: '<|inner_prefix|>I\'m\nthinking<|inner_suffix|><|tools_prefix|>[{"special_function": {"arg1": 1}}]<|tools_suffix|>Hello, world!\nWhat\'s up?',
    markup: ["apertus:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_lfm2_parser (JSON list, pretty-printed)`,
    text: '<|tool_call_start|>[{\n    "name": "get_current_time",\n    "arguments": {\n        "location": "Paris"\n    }\n}]<|tool_call_end|>',
    markup: ["lfm2:get_current_time"],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} test_lfm2_parser (two calls, text before)`,
    text: 'Let me check the weather for you.<|tool_call_start|>[{"name": "get_weather", "arguments": {"location": "Paris"}}, {"name": "get_time", "arguments": {"timezone": "UTC"}}]<|tool_call_end|>',
    markup: ["lfm2:get_weather", "lfm2:get_time"],
    visible: "Let me check the weather for you.",
  },
  {
    source: `${LLAMA_CPP} test_lfm2_parser (text after)`,
    text: '<|tool_call_start|>[{"name": "get_weather", "arguments": {"location": "Paris"}}]<|tool_call_end|>Here\'s the result.',
    markup: ["lfm2:get_weather"],
    visible: "Here's the result.",
  },
  {
    source: `${LLAMA_CPP} test_ministral_3_parser (after [THINK])`,
    text: '[THINK]I\'m\nthinking[/THINK][TOOL_CALLS]special_function[ARGS]{"arg1":1}',
    markup: ["mistral:special_function"],
  },
  {
    source: `${LLAMA_CPP} test_ministral_3_parser (two calls)`,
    text: '[TOOL_CALLS]special_function[ARGS]{"arg1": 1}[TOOL_CALLS]special_function_with_opt[ARGS]{"arg1": 1, "arg2": 2}',
    markup: ["mistral:special_function", "mistral:special_function_with_opt"],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} test_ministral_3_parser (a fenced JSON answer after reasoning)`,
    text: '[THINK]I need to output the invoice details in JSON[/THINK]```json\n{"amount": 123.45, "date": "2025-12-03"}\n```',
    tools: ["special_function"],
    markup: [],
  },
  // --- Real leaks: degraded DeepSeek V4 DSML (deepseek-ai/DeepSeek-V3#1244, AgentFlocks/flocks PR #687) --
  {
    source: "deepseek-ai/DeepSeek-V3#1244 (DeepSeek V4 Pro: ASCII doubled bars)",
    text: '<||DSML||tool_calls><||DSML||invoke name="search_news">\n<||DSML||parameter name="query" string="true">Orellana política</||DSML||parameter>\n</||DSML||invoke>\n</||DSML||tool_calls>',
    markup: ["deepseek-dsml:search_news"],
    visible: "",
  },
  {
    source: "AgentFlocks/flocks PR #687 (the fullwidth doubled bars it reports, around a call of ours)",
    text: 'Let me look that up.\n\n<｜｜DSML｜｜tool_calls>\n<｜｜DSML｜｜invoke name="web_search">\n<｜｜DSML｜｜parameter name="query" string="true">weather Paris</｜｜DSML｜｜parameter>\n</｜｜DSML｜｜invoke>\n</｜｜DSML｜｜tool_calls>',
    markup: ["deepseek-dsml:web_search"],
    visible: "Let me look that up.\n\n",
  },
  {
    source:
      "deepseek-ai/DeepSeek-V3#1244 (the reported `<||DSML|| invoke name=…>` spacing, the call completed by us)",
    text: '<||DSML|| invoke name="push_question">\n<||DSML|| parameter name="text" string="true">What next?</||DSML|| parameter>\n</||DSML|| invoke>',
    markup: ["deepseek-dsml:push_question"],
    visible: "",
  },
  // --- Real leaks quoted in public issues ----------------------------------------------------------
  {
    source: "anomalyco/opencode#50206 (DeepSeek v4.1 flash: spaced DSML, the invoke written as a parameter)",
    text: '<｜DSML｜ parameter name="edit">\n <｜DSML｜ parameter name="edits" string="false">[...]</｜DSML｜ parameter>\n <｜DSML｜ parameter name="path" string="true">/home/ubuntu/project/src/main.rs</｜DSML｜ parameter>\n</｜DSML｜ invoke>',
    // Each parameter is withheld through its close, the orphan invoke closer with the last one; with
    // no invoke there is no call to name (a parameter name is not a tool name).
    tools: ["edit", "read"],
    markup: ["deepseek-dsml:?", "deepseek-dsml:?"],
    recover: [],
    visible: "\n ",
  },
  {
    source: `${VLLM} tests/tool_use/test_deepseek_v32_tool_parser.py (its parameter with the invoke lost, V4 envelope, prose after)`,
    text: '<｜DSML｜tool_calls>\n<｜DSML｜parameter name="location" string="true">Hangzhou</｜DSML｜parameter>\n</｜DSML｜tool_calls>\nDone.',
    tools: ["get_weather"],
    markup: ["deepseek-dsml:?", "deepseek-dsml:?"],
    recover: [],
    visible: "\n\nDone.",
  },
  {
    source:
      "deepseek-ai/DeepSeek-V3#1244 (spaced ASCII doubled bars, the invoke lost: both orphan closers join)",
    text: '<||DSML|| parameter name="text" string="true">What next?</||DSML|| parameter>\n</||DSML|| invoke>\n</||DSML|| tool_calls>',
    tools: ["push_question"],
    markup: ["deepseek-dsml:?"],
    recover: [],
    visible: "",
  },
  {
    source: "anomalyco/opencode#43385 (MiMo V2.5: a tml: namespace on Anthropic-style XML)",
    text: '<tml:function_calls>\n<invoke name="bash">\n<parameter name="command">some-command</parameter>\n</invoke>\n</tml:function_calls>',
    markup: ["anthropic-xml:bash"],
    visible: "",
  },
  {
    source: "anomalyco/opencode#13762 (a bare Qwen3-Coder call cut off before its closers)",
    text: "I need to fetch the opencode.nvim README from the repository to understand\nthe actual documentation claims about snacks.nvim requirements.\n\n<function=webfetch>\n<parameter=url>\nhttps://raw.githubusercontent.com/opencodeai/opencode.nvim/main/README.md\n</parameter>\n<parameter=format>\nmarkdown\n</parameter>",
    markup: ["qwen3-coder:webfetch"],
    visible:
      "I need to fetch the opencode.nvim README from the repository to understand\nthe actual documentation claims about snacks.nvim requirements.\n\n",
  },
  {
    source: "anomalyco/opencode#1406 (qwen2.5:14b)",
    text: '<tool_call>{"name":"write", "arguments": {"filePath":"fast_sort.py", "content": "here is code content"}}</tool_call>',
    markup: ["hermes:write"],
    visible: "",
  },
  {
    source: "sgl-project/sglang#31763 (Qwen3.6-27B without the qwen3_coder parser)",
    text: "<tool_call>\n<function=get_highest_load_line>\n<parameter=limit>10</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:get_highest_load_line"],
  },
  {
    source: "Bike4Mind/bike4mind#1119 (Bedrock Kimi: spaced section tokens)",
    text: '<|tool_calls_section_begin|> <|tool_call_begin|> functions.math_evaluate:0 <|tool_call_argument_begin|> {"expression": "384 * 27"} <|tool_call_end|> <|tool_calls_section_end|>',
    markup: ["kimi-k2:math_evaluate"],
    visible: "",
  },
  {
    source: "NousResearch/hermes-agent#24534 (Kimi K2.6 via OpenRouter)",
    text: '<|tool_calls_section_begin|><|tool_call_begin|>functions.web_search:0<|tool_call_argument_begin|>{"query": "latest news"}<|tool_call_end|><|tool_calls_section_end|>',
    markup: ["kimi-k2:web_search"],
  },
  {
    // Left as prose: an envelope and a header with raw text where the parameter tag belongs is what
    // a prose mention looks like too (`<tool_call> <function=read_file> and the rest…`).
    source: "lidge-jun/opencodex#5499 (MiMo v2.6: no <parameter=…> before the value; left as prose)",
    text: '并立即给出 canonical final。<tool_call><function=exec>const results = await Promise.allSettled([\n  tools.exec_command({ cmd: "git status --short --branch", workdir: "...", yield_time_ms: 10000 }),\n  ...\n</parameter></function></tool_call>',
    tools: ["exec"],
    markup: [],
  },
  // --- vLLM: DeepSeek V3.2 DSML, MiniMax M1 ----------------------------------------------------------
  {
    source: `${VLLM} tests/tool_use/test_deepseek_v32_tool_parser.py`,
    text: '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="location" string="true">Hangzhou</｜DSML｜parameter>\n<｜DSML｜parameter name="date" string="true">2024-01-16</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
    markup: ["deepseek-dsml:get_weather"],
    visible: "",
  },
  {
    source: `${VLLM} tests/tool_use/test_deepseek_v32_tool_parser.py (compact, two invokes, a space before the closer)`,
    text: '<｜DSML｜function_calls><｜DSML｜invoke name="get_current_weather"><｜DSML｜parameter name="location" string="true">北京</｜DSML｜parameter><｜DSML｜parameter name="time" string="true">2025-03-21</｜DSML｜parameter></｜DSML｜invoke><｜DSML｜invoke name="get_current_weather"><｜DSML｜parameter name="location" string="true">北京</｜DSML｜parameter></｜DSML｜invoke> </｜DSML｜function_calls>',
    markup: ["deepseek-dsml:get_current_weather", "deepseek-dsml:get_current_weather"],
    visible: "",
  },
  {
    source: `${VLLM} tests/tool_use/test_minimax_tool_parser.py (two calls, one a line)`,
    text: '<tool_calls>\n{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}\n{"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}\n</tool_calls>',
    markup: ["minimax-m1:get_current_weather", "minimax-m1:get_current_weather"],
    visible: "",
  },
  {
    source: `${VLLM} tests/tool_use/test_minimax_tool_parser.py (no closer)`,
    text: '<tool_calls>\n{"name": "get_current_weather", "arguments": {"city": "Boston", "state": "MA"}}',
    markup: ["minimax-m1:get_current_weather"],
  },
  {
    source: `${VLLM} tests/tool_use/test_minimax_tool_parser.py (a rehearsal in <think>, then an answer and the call)`,
    text: '<think>I should use a tool. <tool_calls>\n{"name": "ignored_tool", "arguments": {"should": "ignore"}}\n</tool_calls></think>\n\nLet me help you with the weather. <tool_calls>\n{"name": "get_current_weather", "arguments": {"city": "Miami", "state": "FL", "unit": "fahrenheit"}}\n</tool_calls>',
    tools: ["get_current_weather", "ignored_tool"],
    markup: ["minimax-m1:ignored_tool", "minimax-m1:get_current_weather"],
    recover: ["get_current_weather"],
  },
  {
    source: `${VLLM} tests/tool_use/test_minimax_tool_parser.py (invalid JSON between two calls)`,
    text: '<tool_calls>\n{"name": "valid_tool", "arguments": {"city": "Seattle"}}\n{invalid json here}\n{"name": "another_valid_tool", "arguments": {"param": "value"}}\n</tool_calls>',
    // The envelope is withheld whole; the line that is not a call object is its own unnamed span.
    markup: ["minimax-m1:valid_tool", "minimax-m1:?", "minimax-m1:another_valid_tool"],
  },
  // --- Ollama model/parsers/commandr_test.go (Command-R: the fence is the envelope) ---------------------
  {
    source: `${OLLAMA}/commandr_test.go`,
    text: 'Action: ```json\n[\n    {\n        "tool_name": "get_weather",\n        "parameters": {"location": "San Francisco", "unit": "celsius"}\n    }\n]\n```',
    markup: ["command-r:get_weather"],
    visible: "",
  },
  {
    source: `${OLLAMA}/commandr_test.go (two calls)`,
    text: 'Action: ```json\n[\n    {\n        "tool_name": "get_weather",\n        "parameters": {"location": "New York"}\n    },\n    {\n        "tool_name": "get_time",\n        "parameters": {"timezone": "EST"}\n    }\n]\n```',
    markup: ["command-r:get_weather", "command-r:get_time"],
  },
  {
    source: `${OLLAMA}/commandr_test.go (directly-answer: the model declines every tool)`,
    text: 'Action: ```json\n[\n    {\n        "tool_name": "directly-answer",\n        "parameters": {}\n    }\n]\n```',
    tools: ["get_weather"],
    markup: ["command-r:directly-answer"],
    recover: [],
  },
  {
    source: `${OLLAMA}/commandr_test.go (text before the action)`,
    text: 'I\'ll look up the weather for you.\nAction: ```json\n[{"tool_name": "get_weather", "parameters": {"location": "NYC"}}]\n```',
    markup: ["command-r:get_weather"],
    visible: "I'll look up the weather for you.\n",
  },
  {
    source: `${OLLAMA}/commandr_test.go (no closing fence)`,
    text: 'Action: ```json\n[{"tool_name": "bash", "parameters": {"command": "pwd"}}]',
    markup: ["command-r:bash"],
  },
  {
    source: `${OLLAMA}/commandr_test.go (a single object, no list)`,
    text: 'Action: ```json\n{\n    "tool_name": "read_file",\n    "parameters": {"path": "/etc/hosts"}\n}\n```',
    markup: ["command-r:read_file"],
  },
  {
    source: `${OLLAMA}/commandr_test.go (a word that starts like Action)`,
    text: "Here is my response. Actually, let me think...",
    tools: ["bash"],
    markup: [],
  },
  // --- vLLM tests/entrypoints/openai/tool_parsers/test_qwen3xml_tool_parser.py ------------------------
  {
    // vLLM's XML parser needs the <tool_call> wrapper; the missing opener is the common real leak
    // (FORMATS.md, `qwen3-coder`), so an offered name with its structure is a call here.
    source: `${VLLM_TP}/test_qwen3xml_tool_parser.py (no <tool_call> wrapper: vLLM's XML parser says text)`,
    text: "<function=quick>\n<parameter=z>\nhello\n</parameter>\n</function>",
    markup: ["qwen3-coder:quick"],
  },
  {
    source: `${VLLM_TP}/test_qwen3xml_tool_parser.py (HTML in a value, a < at a split)`,
    text: '<tool_call>\n<function=f>\n<parameter=h>\n<img src="photo.jpg" alt="A < B"><div><p>Hello <em>world</em></p></div>before<!-- comment -->after\n</parameter>\n</function>\n</tool_call>',
    markup: ["qwen3-coder:f"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_qwen3xml_tool_parser.py (look-alike tags in a value)`,
    text: "<tool_call>\n<function=f>\n<parameter=v>\n</param></func></tool><parameter><function><tool_call_x></tool_calls> a<<b\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:f"],
    visible: "",
  },
  {
    // A `<function=…>` header inside a value starts another call in the same envelope: both are
    // withheld (vLLM keeps it as the value's text).
    source: `${VLLM_TP}/test_qwen3xml_tool_parser.py (a structural tag inside a value)`,
    text: "<tool_call>\n<function=f>\n<parameter=v>\n<function=other>\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:f", "qwen3-coder:other"],
    tools: ["f"],
    recover: ["f"],
    visible: "",
  },
  {
    source: `${VLLM_TP}/test_qwen3xml_tool_parser.py (a </function> inside a value)`,
    text: "<tool_call>\n<function=f>\n<parameter=v>\ntext</function>more\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:f"],
    visible: "",
  },
  // --- Ollama model/parsers/glm47_test.go ------------------------------------------------------------
  {
    source: `${OLLAMA}/glm47_test.go (reasoning opened by the template, an answer, then the call)`,
    text: "plan</think>Answer<tool_call>calculate<arg_key>count</arg_key><arg_value>3</arg_value><arg_key>enabled</arg_key><arg_value>true</arg_value></tool_call>",
    markup: ["glm:calculate"],
    visible: "plan</think>Answer",
  },
  {
    // A known limit: the body reader has no value context, so a `</tool_call>` written inside an
    // argument value ends the call there (Ollama's GLM parser reads on to `</arg_value>`); the rest
    // of the value is shown. Reading values would swallow the answer whenever a model drops a
    // `</arg_value>`, and GLM's arg tags are often malformed in real output (vllm-project/vllm#49248,
    // PR #54971).
    source: `${OLLAMA}/glm47_test.go (an envelope closer inside an argument value: ends the call early)`,
    text: "<tool_call>write_file<arg_key>path</arg_key><arg_value>docs/format.md</arg_value><arg_key>content</arg_key><arg_value>Wrap each call in <tool_call> and </tool_call>; this text is part of the argument.</arg_value></tool_call>",
    markup: ["glm:write_file"],
    visible: "; this text is part of the argument.</arg_value></tool_call>",
  },
  {
    source: `${OLLAMA}/glm47_test.go (three calls, one a line)`,
    text: "plan</think>\n<tool_call>first<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>\n<tool_call>second<arg_key>b</arg_key><arg_value>2</arg_value></tool_call>\n<tool_call>third<arg_key>c</arg_key><arg_value>3</arg_value></tool_call>",
    markup: ["glm:first", "glm:second", "glm:third"],
  },
  {
    source: `${OLLAMA}/glm47_test.go (comparison operators in a value)`,
    text: "<tool_call>exec\n<arg_key>expr</arg_key>\n<arg_value>a < b && c > d</arg_value>\n</tool_call>",
    markup: ["glm:exec"],
    visible: "",
  },
  // --- DSML's other spellings (vLLM tests/parser/engine, and proxies' own test suites) ----------------
  {
    source: `${VLLM} tests/parser/engine/test_deepseek_v41.py (V4.1: a space after the marker, \`calls\`)`,
    text: 'Checking.\n\n<｜DSML｜ calls>\n<｜DSML｜ invoke name="get_weather">\n<｜DSML｜ parameter name="city" string="true">杭州</｜DSML｜ parameter>\n<｜DSML｜ parameter name="count" string="false">42</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n<｜DSML｜ invoke name="add">\n<｜DSML｜ parameter name="x" string="false">1.5</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>',
    markup: ["deepseek-dsml:get_weather", "deepseek-dsml:add"],
    visible: "Checking.\n\n",
  },
  {
    source: `${VLLM} tests/parser/engine/test_deepseek_v41.py (the wrapper cut short to \`call\`)`,
    text: 'Checking.\n\n<｜DSML｜ call>\n<｜DSML｜ invoke name="get_weather">\n<｜DSML｜ parameter name="city" string="true">杭州</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>',
    markup: ["deepseek-dsml:get_weather"],
    visible: "Checking.\n\n",
  },
  {
    source: `${VLLM} tests/parser/engine/test_deepseek_v4_malformed_recovery.py (\`toolcalls\`, #51914)`,
    text: '<｜DSML｜toolcalls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Seoul</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>',
    markup: ["deepseek-dsml:get_weather"],
    visible: "",
  },
  {
    source:
      "a DSML proxy's tests (whitespace drift: `>` after a space, single quotes, attributes in any order)",
    text: "checking<|DSML|function_calls ><|DSML|invoke name='lookup_weather'><|DSML|parameter name='city' string='true'>Shanghai</|DSML|parameter><|DSML|parameter string='false'name='days'>2</|DSML|parameter></|DSML|invoke></|DSML|function_calls>",
    markup: ["deepseek-dsml:lookup_weather"],
    visible: "checking",
  },
  {
    source: "a DSML proxy's tests (`toolcalls`, a space after the marker, curly quotes)",
    text: "checking<｜DSML｜toolcalls> <｜DSML｜ invoke name=“lookup_weather”> <｜DSML｜ parameter name=“city” string=“true”>Shanghai</｜DSML｜ parameter> </｜DSML｜ invoke> </｜DSML｜tool_calls>",
    markup: ["deepseek-dsml:lookup_weather"],
    visible: "checking",
  },
  {
    source: "a DSML proxy's tests (`<｜DSML｜tool>`, vllm-project/vllm#56141)",
    text: 'checking<｜DSML｜tool><｜DSML｜invoke name="lookup_weather"><｜DSML｜parameter name="city" string="true">Shanghai</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>',
    markup: ["deepseek-dsml:lookup_weather"],
    visible: "checking",
  },
  {
    source: "a DSML proxy's tests (spaced doubled bars, a repeated invoke close, no envelope opener)",
    text: '< | | DSML | | invoke name="skill">< | | DSML | | parameter name="name" string="true">anima-tagger</ | | DSML | | parameter></ | | DSML | | invoke></ | | DSML | | invoke>< | | DSML | | invoke name="read_image">< | | DSML | | parameter name="file_path" string="true">C:\\images\\sample.png</ | | DSML | | parameter></ | | DSML | | invoke></ | | DSML | | calls>',
    markup: ["deepseek-dsml:skill", "deepseek-dsml:read_image"],
    visible: "",
  },
  {
    source: "anomalyco/opencode#24566 (DeepSeek V4 Flash: the envelope's `>` missing)",
    text: '<｜DSML｜tool_calls\n<｜DSML｜invoke name="question">\n<｜DSML｜parameter name="questions" string="false">[{"question": "xxx：", "options": {"label": "xxx", "description": "xxx"}}]</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>',
    markup: ["deepseek-dsml:question"],
    visible: "",
  },
  {
    source: "MetaFARS/codex-relay PR #49 (V4 Flash: a parameter written as a self-closing invoke)",
    text: '<｜｜DSML｜｜tool_calls>\n<｜｜DSML｜｜invoke name="exec_command">\n<｜｜DSML｜｜invoke name="cmd" string="echo alpha" />\n</｜｜DSML｜｜invoke>\n</｜｜DSML｜｜tool_calls>',
    markup: ["deepseek-dsml:exec_command"],
    visible: "",
  },
  {
    // A known limit: a DSML tag named after the tool is not read (a literal that ends at the marker,
    // to read any tag name after it, would be matched at every cut-off DSML marker of a stream).
    source: "apmantza/pi-free#376 (a DSML tag named after the tool, its arguments as child elements: shown)",
    text: "<｜DSML｜aio-webcontent>\n <url>https://github.com/runningZ1/union-search-skill</url>\n <budgetTokens>3000</budgetTokens>\n <diff>false</diff>\n</｜DSML｜aio-webcontent>",
    markup: [],
    tools: ["aio-webcontent"],
  },

  {
    source:
      "sgl-project/sglang python/sglang/srt/function_call/deepseekv32_detector.py (format 2: JSON in the invoke)",
    text: '<｜DSML｜function_calls>\n    <｜DSML｜invoke name="get_favorite_tourist_spot">\n    {\n        "city": "San Francisco"\n    }\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
    markup: ["deepseek-dsml:get_favorite_tourist_spot"],
    visible: "",
  },
  // --- vLLM tests/parser/engine/test_glm47_stray_tool_call.py ---------------------------------------
  {
    source: `${VLLM} tests/parser/engine/test_glm47_stray_tool_call.py (a stray <tool_call> before the call)`,
    text: "prose <tool_call><tool_call>get_weather<arg_key>city</arg_key><arg_value>BJ</arg_value></tool_call>",
    markup: ["glm:get_weather"],
    visible: "prose ",
  },
  {
    source: `${VLLM} tests/parser/engine/test_glm47_stray_tool_call.py (a lone stray <tool_call>: text)`,
    text: "text <tool_call>",
    markup: [],
    tools: ["get_weather"],
  },
  // --- LM Studio's own convention ------------------------------------------------------------------
  {
    source: "a text-tool-call parser's tests (`test_lm_studios_own`: LM Studio's [TOOL_REQUEST] convention)",
    text: '[TOOL_REQUEST]{"name": "get_weather", "arguments": {"location": "Leeds"}}[END_TOOL_REQUEST]',
    markup: ["lmstudio:get_weather"],
    visible: "",
  },
  {
    source: "openclaw/openclaw#66178 (LM Studio: a bracketed tool name, its JSON, then [END_TOOL_REQUEST])",
    text: '[mempalace_mempalace_search]\n{"query":"codename","wing":"personal","room":"identities"}\n[END_TOOL_REQUEST]',
    markup: ["lmstudio:mempalace_mempalace_search"],
    visible: "",
  },
  {
    source: "openclaw/openclaw#66178 (the same after prose, the tool not offered in this step)",
    text: 'Let me search.\n[mempalace_mempalace_search]\n{"query":"codename","wing":{"a":1}}\n[END_TOOL_REQUEST]',
    markup: ["lmstudio:mempalace_mempalace_search"],
    tools: ["read_file"],
    recover: [],
    visible: "Let me search.\n",
  },
  {
    source:
      "vybestack/llxprt-code GemmaToolCallParser tests (Gemma 3 through LM Studio: the name, then its arguments)",
    text: 'Here is the result:\n[TOOL_REQUEST]\nlist_directory {"path": "/home"}\n[TOOL_REQUEST_END]',
    markup: ["lmstudio:list_directory"],
    visible: "Here is the result:\n",
  },
  {
    source:
      "vybestack/llxprt-code TextToolCallParser (the simplest pattern: `[TOOL_REQUEST] name {args} [TOOL_REQUEST_END]`)",
    text: '[TOOL_REQUEST] run_shell_command {"command": "echo 你好 world"} [TOOL_REQUEST_END]',
    markup: ["lmstudio:run_shell_command"],
    tools: ["read_file"],
    recover: [],
    visible: "",
  },
  {
    source: "a Markdown reference label before a JSON block (prose): shown",
    text: 'See [config]\n{"debug": true}\nand [the docs](https://example.com).',
    markup: [],
    tools: ["read_file"],
  },
  // --- PLaMo 3 (vLLM `plamo3`): begin/end tag pairs, the test's own builders --------------------------
  {
    source: `${PLAMO3} (test_extract_tool_calls: content before the requests)`,
    text: `Checking the weather.${plamoRequests(plamoCall("get_weather", '{"city": "Tokyo"}'))}`,
    markup: ["plamo3:get_weather", "plamo3:?"],
    visible: "Checking the weather.",
  },
  {
    source: `${PLAMO3} (test_extract_tool_calls: two requests)`,
    text: plamoRequests(plamoCall("echo", '{"text": "hi"}'), plamoCall("sum", '{"a": 1, "b": 2}')),
    markup: ["plamo3:echo", "plamo3:sum", "plamo3:?"],
    visible: "",
  },
  {
    source: `${PLAMO3} (test_streaming_handles_incomplete_request_boundaries: cut off after the name)`,
    text: `Before tools.${PLAMO_TAGS.requests}${PLAMO_TAGS.request}${PLAMO_TAGS.name}sum${PLAMO_TAGS.nameEnd}`,
    markup: ["plamo3:sum"],
    visible: "Before tools.",
  },
  {
    source: `${PLAMO3} (test_extract_tool_calls: the end-of-turn token, then text)`,
    text: "Regular response<|plamo:tag|>ignored",
    markup: ["plamo3:?"],
    recover: [],
    visible: "Regular responseignored",
  },
  {
    source: `${PLAMO3} (a call in the reasoning block, the answer after it)`,
    text: `<|plamo:begin_think:plamo|>I could call ${plamoCall("get_weather", '{"city": "Tokyo"}')} but I know it.<|plamo:end_think:plamo|>It is sunny.`,
    markup: ["plamo3:get_weather"],
    recover: [],
    visible: "<|plamo:begin_think:plamo|>I could call  but I know it.<|plamo:end_think:plamo|>It is sunny.",
  },
  // --- Inkling (vLLM `inkling`): typed blocks between special tokens ------------------------------------
  {
    source: `${INKLING} (test_reasoning_text_tool)`,
    text: `${INK.think}I should check the weather.${INK.end}${INK.model}${INK.text}Let me check.${INK.end}${INK.model}${inklingCall("get_weather", '{"city":"SF"}')}`,
    markup: ["inkling:?", "inkling:?", "inkling:?", "inkling:?", "inkling:get_weather"],
    recover: ["get_weather"],
    visible: `${INK.think}I should check the weather.${INK.end}Let me check.`,
  },
  {
    source: `${INKLING} (test_parallel_tool_calls)`,
    text: `${inklingCall("a", "{}")}${INK.model}${inklingCall("b", '{"x":[1,2]}')}`,
    markup: ["inkling:a", "inkling:?", "inkling:b"],
    recover: ["a", "b"],
    visible: "",
  },
  {
    source: `${INKLING} (test_plain_text)`,
    text: `${INK.text}hello world${INK.end}`,
    markup: ["inkling:?", "inkling:?"],
    recover: [],
    visible: "hello world",
  },
  // --- GigaChat 3.5: DSML's grammar under its own marker (vLLM `gigachat35`) -------------------------------
  {
    source: `${VLLM} tests/tool_parsers/test_gigachat35_tool_parser.py (surrounding_text_output)`,
    text: 'I will check.<｜GCML｜tool_calls><｜GCML｜invoke name="get_weather"><｜GCML｜parameter name="city" string="true">Tokyo</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>',
    markup: ["deepseek-dsml:get_weather"],
    visible: "I will check.",
  },
  {
    source: `${VLLM} tests/tool_parsers/test_gigachat35_tool_parser.py (parallel_tool_calls_output)`,
    text: '<｜GCML｜tool_calls><｜GCML｜invoke name="get_weather"><｜GCML｜parameter name="city" string="true">Tokyo</｜GCML｜parameter></｜GCML｜invoke><｜GCML｜invoke name="get_time"><｜GCML｜parameter name="timezone" string="true">Asia/Tokyo</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>',
    markup: ["deepseek-dsml:get_weather", "deepseek-dsml:get_time"],
    visible: "",
  },
  // --- K2 Horizon (vLLM `k2_horizon`) ------------------------------------------------------------------
  {
    source: `${K2H} (test_xml_default_parses_multiple_calls_and_coerces_schema)`,
    text: ifmGroup(
      [
        ifmXml("lookup", [
          ["query", "123"],
          ["limit", "3"],
        ]),
        ifmXml("ping", []),
      ],
      "Before ",
      " after.",
    ),
    markup: ["k2-horizon:lookup", "k2-horizon:ping"],
    visible: "Before  after.",
  },
  {
    source: `${K2H} (test_request_level_format_overrides: the JSON form)`,
    text: ifmGroup([ifmJson("lookup", '{"limit": "2"}')]),
    markup: ["k2-horizon:lookup"],
    visible: "",
  },
  {
    source: `${K2H} (test_request_level_format_overrides: the typed XML form)`,
    text: ifmGroup([
      ifmXml(
        "lookup",
        [
          ["query", "weather"],
          ["limit", "2"],
        ],
        true,
      ),
    ]),
    markup: ["k2-horizon:lookup"],
    visible: "",
  },
  {
    source: `${K2H} (test_streaming_flushes_incomplete_markup_as_content: cut off after the name)`,
    text: "Before<ifm|tool_calls><ifm|tool_call>ping",
    markup: ["k2-horizon:?"],
    tools: ["ping"],
    recover: [],
    visible: "Before",
  },
  // --- MiniCPM 5 (vLLM `minicpm5`): no envelope -------------------------------------------------------
  {
    source: `${MINICPM5} (test_single_call_with_surrounding_text)`,
    text: 'Intro before.\n<function name="get_weather"><param name="city">上海</param><param name="date">2024-06-27</param></function>\nOutro after.\n',
    markup: ["minicpm5:get_weather"],
    visible: "Intro before.\n\nOutro after.\n",
  },
  {
    source: `${MINICPM5} (test_tokenizer_space_marker)`,
    text: '<function\u0120name="get_weather"><param\u0120name="city">上海</param><param\u0120name="date">2024-06-27</param></function>\n',
    markup: ["minicpm5:get_weather"],
    visible: "\n",
  },
  {
    source: `${MINICPM5} (test_collapsed_tags_current_weather)`,
    text: '<functionname="get_current_weather"><paramname="city">Dallas</param><paramname="state">TX</param><paramname="unit">fahrenheit</param></function>',
    markup: ["minicpm5:get_current_weather"],
    visible: "",
  },
  {
    source: `${MINICPM5} (test_multiple_calls_interleaved_text)`,
    text: 'Head\n<function name="get_weather"><param name="city">北京</param></function>\nTXT\n<function name="sum_values"><param name="nums">[7,8,9]</param><param name="exact">false</param></function>\nTail\n',
    markup: ["minicpm5:get_weather", "minicpm5:sum_values"],
    visible: "Head\n\nTXT\n\nTail\n",
  },
  {
    source: `${MINICPM5} (test_unknown_tool_block_preserved: no envelope, a tool not offered: text)`,
    text: '<function name="unknown"><param name="x">1</param></function>\n',
    markup: [],
    tools: ["get_weather"],
  },
  {
    source: `${MINICPM5} (test_incomplete_missing_function_end: cut off)`,
    text: '<function name="get_weather"><param name="city">北京</param>',
    markup: ["minicpm5:get_weather"],
    visible: "",
  },
  // --- Upstage Solar Open 2 (vLLM `solar_open2`) --------------------------------------------------------
  {
    source: `${SOLAR2} (test_single_tool_with_content_prefix)`,
    text: `Let me check the weather.${solarCall("get_weather", solarArg("city", "Seoul"))}`,
    markup: ["solar-open2:get_weather"],
    visible: "Let me check the weather.",
  },
  {
    source: `${SOLAR2} (test_multiple_tool_calls)`,
    text: `I'll check both.${solarCall("get_weather", solarArg("city", "Seoul"))}\n${solarCall("get_weather", solarArg("city", "Tokyo"))}`,
    markup: ["solar-open2:get_weather", "solar-open2:get_weather"],
    visible: "I'll check both.\n",
  },
  {
    source: `${SOLAR2} (test_no_arguments)`,
    text: "<|tool_call:start|>get_time\n<|tool_call:end|>",
    markup: ["solar-open2:get_time"],
    visible: "",
  },
  {
    source: `${SOLAR2} (test_reasoning_tags_with_tool_calls)`,
    text: `<|think:start|>I should use a tool<|think:end|>Sure, let me help.${solarCall("get_weather", solarArg("city", "Seoul"))}`,
    markup: ["solar-open2:get_weather"],
    visible: "<|think:start|>I should use a tool<|think:end|>Sure, let me help.",
  },
  {
    source: `${SOLAR2} (test_unterminated_block_returns_raw_output: cut off in a value)`,
    text: "Let me check.<|tool_call:start|>search\n<|tool_arg:start|>query<|tool_arg:value|>Seo",
    markup: ["solar-open2:search"],
    visible: "Let me check.",
  },
  {
    source: `${SOLAR2} (test_dropped_arg_end_does_not_swallow_later_calls)`,
    text: `<|tool_call:start|>broken\n<|tool_arg:start|>a<|tool_arg:value|>oops<|tool_call:end|>${solarCall("get_weather", solarArg("city", "Seoul"))}`,
    markup: ["solar-open2:broken", "solar-open2:get_weather"],
    visible: "",
  },
  // --- Models that write a format the catalogue has (vLLM tests/parser/engine) -----------------------
  {
    source: `${VLLM} tests/parser/engine/test_ling3.py (test_ling3_tool_call_without_newline: GLM 4.7's text)`,
    text: "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
    markup: ["glm:get_weather"],
    visible: "",
  },
  {
    source: `${VLLM} tests/parser/engine/test_ling3.py (test_ling3_tool_call_without_args)`,
    text: "<tool_call>ping</tool_call>",
    markup: ["glm:ping"],
    visible: "",
  },
  {
    source: `${VLLM} tests/parser/engine/test_kolibri1.py (test_reasoning_then_hermes_tool_call)`,
    text: '<think>\nI should look it up.\n</think>\n\n<tool_call>\n{"name": "lookup", "arguments": {"city": "Paris"}}\n</tool_call>',
    markup: ["hermes:lookup"],
    visible: "<think>\nI should look it up.\n</think>\n\n",
  },
  {
    source: `${VLLM} tests/parser/engine/test_berrylm.py (test_malformed_function_end_does_not_drop_siblings)`,
    text: `<tool_call>\n<function=broken</function>\n</tool_call>${BERRY_WEATHER}`,
    markup: ["qwen3-coder:?", "qwen3-coder:get_weather"],
    visible: "",
  },
  {
    source: `${VLLM} tests/parser/engine/test_muse_glimmer.py (RAW_TOOLCALL: ATEM in a message addressed to the tool)`,
    text: ` to=self<|message|>I should read the hostname file.<|eom|><|start|>assistant to=read.read<|message|>${atemCall("read.read", "path", "/etc/hostname")}`,
    // The header is Harmony's (a message to the tool), the call Anthropic XML's: one markup each.
    markup: ["harmony:read.read", "anthropic-xml:read.read"],
    visible: " to=self<|message|>I should read the hostname file.<|eom|>",
  },
  {
    // A known limit: MuseGlimmer's reasoning message (` to=self<|message|>`) is not read as a reasoning
    // block, so a call quoted there counts as any other.
    source: `${VLLM} tests/parser/engine/test_muse_glimmer.py (RAW_TRUNCATED: ATEM quoted in the reasoning message)`,
    text: ` to=self<|message|>Maybe I should call ${atemCall("read.read", "path", "/etc/hostname")} but wait`,
    markup: ["anthropic-xml:read.read"],
    visible: " to=self<|message|>Maybe I should call  but wait",
  },
  // --- MiniMax M3's reasoning tokens (vLLM `minimax_m3` reasoning parser) --------------------------------
  {
    source: `${VLLM} vllm/reasoning/minimax_m3_reasoning_parser.py (a call rehearsed in the reasoning, then the answer)`,
    text: `<mm:think>The call would be ${m3Block("read_file", "path", "a.ts")}; no, I know it.</mm:think>It holds one line.`,
    markup: ["minimax-m3:read_file"],
    recover: [],
    visible: "<mm:think>The call would be ; no, I know it.</mm:think>It holds one line.",
  },
  {
    source: `${VLLM} vllm/reasoning/minimax_m3_reasoning_parser.py (reasoning, then the call)`,
    text: `<mm:think>A plan.</mm:think>${m3Block("read_file", "path", "a.ts")}`,
    markup: ["minimax-m3:read_file"],
    visible: "<mm:think>A plan.</mm:think>",
  },
  {
    source: `${VLLM} vllm/reasoning/minimax_m3_reasoning_parser.py (an answer that starts with a stray closer)`,
    text: "</mm:think>The answer is 42.",
    markup: ["minimax-m3:?"],
    recover: [],
    visible: "The answer is 42.",
  },
  // --- DeepSeek V4: a generic XML call closed by DSML's closers ---------------------------------------
  {
    source: "adolfousier/opencrabs#419 (the shape it reports: `<function><name>…` closed by DSML's closers)",
    text: `I'll read it.\n<function><name>read_file</name>\n<parameters>{"path": "src/main.rs"}</parameters>\n</function>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>`,
    markup: ["deepseek-dsml:read_file"],
    visible: "I'll read it.\n",
  },
  {
    source: "adolfousier/opencrabs#419 (the same, with a parameter tag and the envelope's closer only)",
    text: `<function><name>Bash</name><parameter name="command">ls -la</parameter></function></｜DSML｜function_calls>`,
    markup: ["deepseek-dsml:Bash"],
    tools: ["Read"],
    recover: [],
    visible: "",
  },
  {
    source: "adolfousier/opencrabs#419 (the shape, two calls before the closers)",
    text: `<function><name>a</name><parameters>{}</parameters></function>\n<function><name>b</name><parameters>{"x": 1}</parameters></function>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>`,
    markup: ["deepseek-dsml:a", "deepseek-dsml:b"],
    visible: "\n",
  },
  {
    source: "srcML's XML for a C function (ordinary XML with the same tags, no DSML closer): text",
    text: '<unit xmlns="http://www.srcML.org/srcML/src"><function><name>test</name></function></unit>',
    markup: [],
    tools: ["test"],
    visible: '<unit xmlns="http://www.srcML.org/srcML/src"><function><name>test</name></function></unit>',
  },
  // --- openPangu: LFM2's tokens around a JSON list ----------------------------------------------------
  {
    source: `${PANGU} (multiple tool calls)`,
    text: '<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}, {"name": "register_user", "arguments": {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"}, "role": null, "passed_test": true, "aliases": ["John", "Johnny"]}}]<|tool_call_end|>',
    markup: ["lfm2:get_weather", "lfm2:register_user"],
    visible: "",
  },
  {
    source: `${PANGU} (content before the call)`,
    text: 'I will call the tool now. <|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Boston"}}]<|tool_call_end|>',
    markup: ["lfm2:get_weather"],
    visible: "I will call the tool now. ",
  },
  {
    source: `${PANGU} (content after the call)`,
    text: '<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Seattle"}}]<|tool_call_end|>\nThank you!',
    markup: ["lfm2:get_weather"],
    visible: "\nThank you!",
  },
  {
    source: `${PANGU} (streaming: line breaks inside the tokens)`,
    text: 'some content\n<|tool_call_start|>\n[{"name": "device_control_a", "arguments": {}}]\n<|tool_call_end|>',
    markup: ["lfm2:device_control_a"],
    visible: "some content\n",
  },
  {
    source: `${VLLM} vllm/tool_parsers/pangu_tool_parser.py (its fallback tokens [unused11]/[unused12] around the test's call)`,
    text: 'I will call the tool now. [unused11][{"name": "get_weather", "arguments": {"city": "Boston"}}][unused12]',
    markup: ["lfm2:get_weather"],
    visible: "I will call the tool now. ",
  },
  {
    source: `${OPENPANGU2} (single tool)`,
    text: 'Thought: I need to check weather.<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Beijing"}}]<|tool_call_end|>',
    markup: ["lfm2:get_weather"],
    visible: "Thought: I need to check weather.",
  },
  // --- CWM: `<tool: function>` … `</tool>`, the name as the body's first word -------------------------
  { source: CWM, text: "This is a test", markup: [] },
  {
    source: `${CWM} (single terminal call after reasoning)`,
    text: '<think>Let me search.</think>\n<tool: function>\nterminal find . -name "*.py" | xargs grep -n "def bulk_create"\n</tool>\n',
    markup: ["cwm:terminal"],
    visible: "<think>Let me search.</think>\n\n",
  },
  {
    source: `${CWM} (multiple tools)`,
    text: "preamble\n<tool: function>\nterminal echo hi\n</tool>\n<tool: function>\nterminal echo bye\n</tool>\n",
    markup: ["cwm:terminal", "cwm:terminal"],
    visible: "preamble\n\n\n",
  },
  {
    source: `${CWM} (the same block naming a tool not offered: its \`</tool>\` makes it a call)`,
    text: "preamble\n<tool: function>\nterminal echo hi\n</tool>\n",
    markup: ["cwm:terminal"],
    tools: ["read_file"],
    recover: [],
    visible: "preamble\n\n",
  },
  {
    source:
      "cwm: prose that names the tag (vllm/tool_parsers/cwm_tool_parser.py's docstring form, in a sentence)",
    text: "Wrap each call in <tool: function> and close it with </tool>.",
    markup: [],
    tools: ["terminal"],
  },
  // --- dots: Anthropic-style invokes or a JSON object in `<dots_function_call>` ----------------------
  {
    source: `${DOTS} (XML with typed values)`,
    text: 'ok<dots_function_call><invoke name="set_location"><parameter name="location">{"city": "Shanghai"}</parameter><parameter name="days">3</parameter><parameter name="include_weather">true</parameter></invoke></dots_function_call>',
    markup: ["dots:set_location"],
    visible: "ok",
  },
  {
    source: `${DOTS} (multiple invokes and the JSON fallback)`,
    text: `<dots_function_call>${dotsInvoke("search", "query", "chairs")}${dotsInvoke("open", "id", "7")}</dots_function_call><dots_function_call>{"name":"search","arguments":{"query":"tables"}}</dots_function_call>`,
    markup: ["dots:search", "dots:open", "dots:search"],
    visible: "",
  },
  {
    source: `${DOTS} (an unknown tool: withheld, not recovered)`,
    text: `<dots_function_call>${dotsInvoke("ghost", "query", "chairs")}</dots_function_call>`,
    markup: ["dots:ghost"],
    tools: ["search"],
    recover: [],
    visible: "",
  },
  {
    source: `${DOTS} (a block with no call in it: its opener withheld as a token, the rest shown)`,
    text: "<dots_function_call>garbage</dots_function_call>",
    markup: ["dots:?"],
    tools: ["search"],
    visible: "garbage</dots_function_call>",
  },
  {
    source: `${DOTS} (a stray end marker, which vLLM's parser strips: shown, a known limit)`,
    text: "some text </dots_function_call>",
    markup: [],
    tools: ["search"],
  },
  {
    source:
      'a public terminal agent\'s TestBTWExplainsUnexecutedToolCalls (its "screenshot" leak: the tokens around a payload no row reads)',
    text: '<dots_function_call> <dots_function_call> <built-in> <parameter name="command" string="true">date</parameter> </built-in>',
    markup: ["dots:?", "dots:?"],
    tools: ["shell"],
    visible: '  <built-in> <parameter name="command" string="true">date</parameter> </built-in>',
  },
  {
    source:
      'a public agent-negotiation lab\'s notes (a live leak: ">dots_function_call>{"name":"accept"…}" as text)',
    text: 'Here are my valuations. >dots_function_call>{"name":"accept","arguments":{"offer":3}}',
    markup: ["dots:accept"],
    visible: "Here are my valuations. ",
  },
  {
    source:
      "a public agent runtime's protocol-stripping test (a call streamed after prose and a reasoning block)",
    text: 'I am thinking about the problem.<think>private thoughts</think>Here is the solution.<dots_function_call>\n{"name": "calculator", "parameters": {"expression": "2+2"}}\n</dots_function_call>',
    markup: ["dots:calculator"],
    visible: "I am thinking about the problem.<think>private thoughts</think>Here is the solution.",
  },
  {
    source: `${DOTS} (streaming: two blocks)`,
    text: `visible<dots_function_call>${dotsInvoke("search", "query", "chairs")}</dots_function_call><dots_function_call>${dotsInvoke("search", "query", "tables")}</dots_function_call>`,
    markup: ["dots:search", "dots:search"],
    visible: "visible",
  },
  {
    source: `${VLLM} vllm/tool_parsers/dots_tool_parser.py (its invoke regex reads an unquoted name)`,
    text: "<dots_function_call><invoke name=search><parameter name=query>chairs</parameter></invoke></dots_function_call>",
    markup: ["dots:search"],
    visible: "",
  },
  {
    source: "dots: an invoke whose opener was dropped, ended by the orphan </dots_function_call>",
    text: `Searching.\n${dotsInvoke("search", "query", "chairs")}\n</dots_function_call>`,
    markup: ["dots:search"],
    visible: "Searching.\n",
  },
  // --- iQuest: GLM 4.7's call in its own envelope -----------------------------------------------------
  { source: IQUEST2, text: "Just a plain assistant reply with no tool call.", markup: [] },
  {
    source: `${IQUEST2} (typed arguments)`,
    text: iquestCall("get_current_weather", ["city", "Dallas"], ["state", "TX"], ["days", "3"]),
    markup: ["glm:get_current_weather"],
    visible: "",
  },
  {
    source: `${IQUEST2} (no arguments)`,
    text: "<iquestcoder_tool_call>get_current_weather</iquestcoder_tool_call>",
    markup: ["glm:get_current_weather"],
    visible: "",
  },
  {
    source: `${IQUEST2} (leading content, parallel calls)`,
    text: `Let me look that up for you.\n${iquestCall("get_current_weather", ["city", "Dallas"])}${iquestCall("get_current_weather", ["city", "Orlando"])}`,
    markup: ["glm:get_current_weather", "glm:get_current_weather"],
    visible: "Let me look that up for you.\n",
  },
  {
    source: `${IQUEST2} (whitespace between the name and the arguments)`,
    text: "<iquestcoder_tool_call>get_current_weather\n<arg_key>city</arg_key>\n<arg_value>Dallas</arg_value>\n</iquestcoder_tool_call>",
    markup: ["glm:get_current_weather"],
    visible: "",
  },
  {
    source: `${IQUEST2} (an <arg_value> never closed: the parser drops the call; its tokens are still a leak)`,
    text: "<iquestcoder_tool_call>get_current_weather<arg_key>city</arg_key><arg_value>Dallas</iquestcoder_tool_call>",
    markup: ["glm:get_current_weather"],
    visible: "",
  },
  {
    source:
      "sgl-project/sglang python/sglang/srt/function_call/iquest_q1_detector.py (its <iquest_tool_call> tokens)",
    text: "Checking.\n<iquest_tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></iquest_tool_call>",
    markup: ["glm:get_weather"],
    visible: "Checking.\n",
  },
  // --- Step-Audio 2: the tool's type, name and arguments a line each in <tool_call> ------------------
  {
    source: `${VLLM} vllm/tool_parsers/step_audio_2_tool_parser.py (the format its comment names: function⏎forecast_weather⏎{…})`,
    text: 'Let me check.<tool_call>function\nforecast_weather\n{"location": "shanghai"}</tool_call>',
    markup: ["hermes:forecast_weather"],
    visible: "Let me check.",
  },
  // --- RWKV: `**Tool Call:**` and a ```json fence --------------------------------------------------
  { source: RWKV, text: "There is no tool call here.", markup: [] },
  {
    source: `${RWKV} (Markdown tool call)`,
    text: rwkvCall("get_weather", { city: "Paris" }),
    markup: ["rwkv:get_weather"],
    visible: "",
  },
  {
    source: `${RWKV} (parallel Markdown tool calls)`,
    text: `${rwkvCall("get_weather", { city: "Paris" })}\n${rwkvCall("get_forecast", { city: "Berlin" })}`,
    markup: ["rwkv:get_weather", "rwkv:get_forecast"],
    visible: "\n",
    // (In the span, its first ```json line opens a fenced block: the second `**Tool Call:**` is outside code.)
    inlineTwin: false,
  },
  {
    source: `${RWKV} (streams without leaking the marker)`,
    text: `Checking.\n${rwkvCall("get_weather", { city: "Paris" })}`,
    markup: ["rwkv:get_weather"],
    visible: "Checking.\n",
  },
  {
    source: `${RWKV} (a bash fence is content)`,
    text: "You can run this command manually:\n```bash\nperl -0pi -e 's/return a - b/return a + b/' /tmp/calculator.py\n```\n",
    markup: [],
    tools: ["bash"],
  },
  {
    source: `${RWKV} (a json fence with no **Tool Call:** line: a code block, shown; vLLM reads it when tools are offered)`,
    text: 'Checking.\n```json\n{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}\n```',
    markup: [],
    tools: ["get_weather"],
  },
  {
    source: `${RWKV} test_rwkv_tool_parser_streams_legacy_xml_tool_call (a Python dict in Hermes' envelope, no closer)`,
    text: "Need to inspect the file.\n<tool_call>\n{'arguments': {'filePath': 'calculator.py'}, 'name': 'read', 'type': 'tool_call'}\n",
    markup: ["hermes:read"],
    visible: "Need to inspect the file.\n",
  },
  {
    source: `${RWKV} test_rwkv_tool_parser_normalizes_legacy_edit_tool_call`,
    text: "<tool_call>\n{'arguments': {'action': 'replace_text', 'filePath': 'calculator.py', 'oldText': 'return a - b', 'newText': 'return a + b'}, 'name': 'edit', 'type': 'tool_call'}\n",
    markup: ["hermes:edit"],
    visible: "",
  },
  // --- K2 Horizon's reasoning tokens (SGLang k2_v3_detector.py) and Cohere Command 4 ------------------
  {
    source:
      "sgl-project/sglang python/sglang/srt/function_call/k2_v3_detector.py (a call rehearsed in <ifm|think_fast>, then an answer)",
    text: "<ifm|think_fast>I could call <ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call></ifm|think_fast>It is sunny.",
    markup: ["k2-horizon:get_weather"],
    recover: [],
    visible: "<ifm|think_fast>I could call </ifm|think_fast>It is sunny.",
  },
  {
    source:
      "sgl-project/sglang python/sglang/srt/function_call/cohere_command4_detector.py (the wire format its docstring quotes)",
    text: '<|START_THINKING|>Plan.<|END_THINKING|><|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "fn_a", "parameters": {"x": 1}},\n    {"tool_call_id": "1", "tool_name": "fn_b", "parameters": {}}\n]<|END_ACTION|>',
    markup: ["command-r7b:fn_a", "command-r7b:fn_b"],
    visible: "<|START_THINKING|>Plan.<|END_THINKING|>",
  },
  // --- LLM-jp-4.1: Harmony with a space after each special token (llama.cpp llm-jp-harmony.cpp) -------
  {
    source: `${LLAMA_CPP} common/parsers/llm-jp-harmony.cpp (recipient in the role header, its spaced tokens)`,
    text: '<|channel|> analysis<|message|> Need the weather.<|end|><|start|> assistant to=functions.get_weather<|channel|> commentary <|constrain|> json<|message|> {"city": "Tokyo"}<|call|>',
    markup: ["harmony:get_weather"],
    visible: "<|channel|> analysis<|message|> Need the weather.<|end|>",
  },
  {
    source: `${LLAMA_CPP} common/parsers/llm-jp-harmony.cpp (recipient in the channel header)`,
    text: '<|start|> assistant<|channel|> commentary to=functions.get_weather <|constrain|> json<|message|> {"city": "Tokyo"}<|call|>',
    markup: ["harmony:get_weather"],
    visible: "",
  },
  {
    source: `${LLAMA_CPP} common/parsers/llm-jp-harmony.cpp (a rehearsal in the spaced analysis channel, then the final answer)`,
    text: '<|channel|> analysis<|message|> I could send to=functions.get_weather <|constrain|> json<|message|> {"city": "Tokyo"} but no.<|end|><|start|> assistant<|channel|> final<|message|> Hello!',
    markup: ["harmony:get_weather", "harmony:?"],
    recover: [],
    visible: "<|channel|> analysis<|message|> I could send  but no.<|end|> Hello!",
  },
  // --- MiMo-V2-Flash (vLLM) and GLM-5.3-Flash (SGLang): shapes of formats already in the catalogue -------
  {
    source: `${VLLM} tests/tool_parsers/test_mimov2_flash_tool_parser.py (multiple calls, the second's parameter before its header)`,
    text: "Here is the result:\n<tool_call>\n<function=execute_bash>\n<parameter=command>pwd</parameter>\n</function>\n</tool_call>\n<tool_call>\n<parameter=command>ls -la</parameter>\n<function=list_files>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:execute_bash", "qwen3-coder:list_files"],
    visible: "Here is the result:\n\n",
  },
  {
    source:
      "sgl-project/sglang python/sglang/srt/function_call/glm53_flash_detector.py (its JSON form, a display name before the name)",
    text: '<tool_call>Weather/get_weather_by_city>{"location": "Beijing"}',
    markup: ["glm:get_weather_by_city"],
    visible: "",
  },
  {
    source:
      "sgl-project/sglang python/sglang/srt/function_call/glm53_flash_detector.py (its JSON form after prose, closed)",
    text: 'Sure.<tool_call>get_weather>{"location": "Beijing"}</tool_call>',
    markup: ["glm:get_weather"],
    visible: "Sure.",
  },
  {
    source:
      "sgl-project/sglang python/sglang/srt/function_call/glm53_flash_detector.py (its tag form, a display name as the name)",
    text: "<tool_call>Weather\n<arg_key>location</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>",
    markup: ["glm:Weather"],
    tools: ["get_weather"],
    recover: [],
    visible: "",
  },
  // --- Cohere Command A / North Code: the turn's framing tokens (llama.cpp cohere2moe.cpp) ----------------
  {
    source: `${LLAMA_CPP} common/parsers/cohere2moe.cpp (a call, then the turn's end token)`,
    text: '<|START_THINKING|>Plan.<|END_THINKING|><|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1}}\n]<|END_ACTION|><|END_OF_TURN_TOKEN|>',
    markup: ["command-r7b:f", "command-r7b:?"],
    recover: ["f"],
    visible: "<|START_THINKING|>Plan.<|END_THINKING|>",
  },
  {
    source: `${LLAMA_CPP} common/parsers/cohere2moe.cpp (an answer in its text block)`,
    text: "<|START_THINKING|>Easy.<|END_THINKING|><|START_TEXT|>Paris is the capital.<|END_TEXT|><|END_OF_TURN_TOKEN|>",
    markup: ["command-r7b:?", "command-r7b:?", "command-r7b:?"],
    recover: [],
    visible: "<|START_THINKING|>Easy.<|END_THINKING|>Paris is the capital.",
  },
  // --- GLM: what stands right after the name (real leaks) ---------------------------------------------
  {
    source:
      "getsigit/sigit#94 (GLM: a second <tool_call> where the first <arg_key> belongs, glued to the name)",
    text: "I'll list the files.\n<tool_call>bash<tool_call>command</arg_key><arg_value>ls -la</arg_value></tool_call>",
    markup: ["glm:bash"],
    visible: "I'll list the files.\n",
  },
  {
    source: "fw-ai-external/python-sdk#119 (GLM 5.2: a stray </arg_value> closes a zero-argument call)",
    text: "<tool_call>tool_12</arg_value></tool_call>",
    markup: ["glm:tool_12"],
    visible: "",
  },
  {
    source: "fw-ai-external/python-sdk#119 (the same, the stream cut after the stray tag)",
    text: "Let me run it.<tool_call>tool_12</arg_value>",
    markup: ["glm:tool_12"],
    visible: "Let me run it.",
  },
  // --- An envelope with no call in it: one markup, nothing of it shown -------------------------------
  {
    source: `${VLLM} tests/tool_parsers/test_lfm2_tool_parser.py (test_empty_tool_call_block: [])`,
    text: "<|tool_call_start|>[]<|tool_call_end|>",
    markup: ["lfm2:?"],
    visible: "",
  },
  {
    source: `${VLLM} tests/tool_parsers/test_lfm2_tool_parser.py (test_empty_tool_call_block: [ ], after prose)`,
    text: "Nothing to call. <|tool_call_start|>[ ]<|tool_call_end|>",
    markup: ["lfm2:?"],
    visible: "Nothing to call. ",
  },
  {
    source:
      "a MiniMax M2.7 structural-tag grammar's notes (the `<minimax:tool_call></minimax:tool_call>` envelope loop), in a chapter writer's sanitizer test",
    text: "\u3000\u3000开篇。\n<minimax:tool_call></minimax:tool_call>\n\u3000\u3000续写。",
    markup: ["minimax-m2:?"],
    visible: "\u3000\u3000开篇。\n\n\u3000\u3000续写。",
  },
  {
    source: "a MiniMax M2 parser's tests (`first tool call malformed - no invoke`, its line break kept)",
    text: "Sure.<minimax:tool_call>\n</minimax:tool_call>",
    markup: ["minimax-m2:?"],
    visible: "Sure.",
  },
  {
    source: `${OLLAMA}/minimaxm2_test.go (TestMiniMaxM2ParserAttributeExtraction: a name in single quotes)`,
    text: "<minimax:tool_call>\n<invoke name='get_weather'>\n<parameter name='location'>Tokyo</parameter>\n</invoke>\n</minimax:tool_call>",
    markup: ["minimax-m2:get_weather"],
    visible: "",
  },
  // --- A pythonic list glued to a word is a subscript -------------------------------------------------
  {
    source: `${VLLM} tests/tool_parsers/test_pythonic_tool_parser.py (test_regex_timeout_handling: no call, no tools offered)`,
    text: "hello world[A(A=\t)A(A=,\t\t)A(A=,\t",
    markup: [],
  },
  {
    source: `${VLLM} tests/tool_parsers/test_llama3_json_tool_parser.py (test_regex_timeout_handling: no call)`,
    text: "{hello world[A(A=\t)A(A=,\t\t)A(A=,\t",
    markup: [],
    tools: ["A"],
  },
  // --- Step3 with DeepSeek's whole header before its invoke -------------------------------------------
  {
    source: `${VLLM} tests/tool_parsers/test_step3_tool_parser.py (TestStep3ParameterWhitespace: the name after function<｜tool_sep｜>)`,
    text: '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>edit_file\n<steptml:invoke name="edit_file"><steptml:parameter name="old_string">    if x:\n        return 1\n</steptml:parameter><steptml:parameter name="indent"> 4 </steptml:parameter><steptml:parameter name="enabled"> true </steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
    markup: ["step3:edit_file"],
    visible: "",
  },
  // --- Qwen3-Coder: a stray </parameter> right after the header -------------------------------------
  {
    source:
      "signalnine/q27#24 (its stray </parameter> after the header, the header as Qwen3-Coder writes it; the report's `<name>task` header is not read)",
    text: "<function=task>\n</parameter>\n<parameter=description>\nAdd timestamp comment to hello.py\n</parameter>\n<parameter=subagent_type>\ngeneral\n</parameter>\n</function>",
    markup: ["qwen3-coder:task"],
    visible: "",
  },
  // --- Hunyuan-A13B writes Jamba's text ----------------------------------------------------------------
  {
    source: `${VLLM} tests/tool_parsers/test_hunyuan_a13b_tool_parser.py (text after the call, and </answer>)`,
    text: '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>\n</answer>',
    markup: ["jamba:get_weather"],
    visible: "\n</answer>",
  },
  // --- MiniCPM's header with its name in single quotes -------------------------------------------------
  {
    source:
      "sgl-project/sglang python/sglang/srt/function_call/minicpm4_xml_detector.py (its name regex takes either quote)",
    text: "好的，我来查。\n<function name='get_weather'><param name='city'>北京</param><param name='date'>2024-06-27</param></function>",
    markup: ["minicpm5:get_weather"],
    visible: "好的，我来查。\n",
  },
  // --- More peer test strings and real leaks, checked and already right (regression rows) ------------
  {
    source:
      "vllm-project/vllm tests/tool_parsers/test_llama3_json_tool_parser.py (calls separated by a bare newline)",
    text: '{"name": "searchTool", "parameters": {"query": "test1"}}\n{"name": "getOpenIncidentsTool", "parameters": {}}',
    markup: ["llama3-json:searchTool", "llama3-json:getOpenIncidentsTool"],
    visible: "\n",
  },
  {
    source:
      "vllm-project/vllm tests/tool_parsers/test_llama3_json_tool_parser.py (a JSON fragment in the prose after the call)",
    text: '{"name": "searchTool", "parameters": {"query": "test"}} The arguments I passed were {"query": "test"}',
    markup: ["llama3-json:searchTool"],
    visible: ' The arguments I passed were {"query": "test"}',
  },
  {
    source: "vllm-project/vllm tests/tool_parsers/test_phi4mini_tool_parser.py (surrounding_text_output)",
    text: 'Let me check the weather for you.\nfunctools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\nWould you like to know more?',
    markup: ["phi4-functools:get_weather"],
    visible: "Let me check the weather for you.\n\nWould you like to know more?",
  },
  {
    source:
      "vllm-project/vllm tests/tool_parsers/test_internlm2_tool_parser.py (a tool the client never offered)",
    text: '<|action_start|><|plugin|>{"name": "delete_everything", "parameters": {"city": "Tokyo"}}<|action_end|>',
    markup: ["internlm:delete_everything"],
    tools: ["get_weather"],
    recover: [],
    visible: "",
  },
  {
    source:
      "vllm-project/vllm tests/tool_parsers/test_granite_tool_parser.py (arguments before the name, two calls)",
    text: '<|tool_call|> [{"arguments": {"city": "Tokyo"}, "name": "get_weather"}, {"arguments": {"timezone": "Asia/Tokyo"}, "name": "get_time"}]',
    markup: ["granite:get_weather", "granite:get_time"],
    visible: "",
  },
  {
    source: "vllm-project/vllm tests/tool_parsers/test_longcat_tool_parser.py (surrounding_text_output)",
    text: 'Let me check the weather for you.\n<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</longcat_tool_call>\nHere is the result.',
    markup: ["longcat:get_weather"],
    visible: "Let me check the weather for you.\n\nHere is the result.",
  },
  {
    source: "vllm-project/vllm tests/tool_parsers/test_olmo3_tool_parser.py (JSON literals in a Python call)",
    text: "<function_calls>register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, role=null, passed_test=true, aliases=['John', 'Johnny'])</function_calls>",
    markup: ["olmo3:register_user"],
    visible: "",
  },
  {
    source:
      "vllm-project/vllm tests/tool_parsers/test_apertus_tool_parser.py (the suffix missing, after prose)",
    text: 'Content<|tools_prefix|>[{"f": {"a": 1}}]',
    markup: ["apertus:f"],
    visible: "Content",
  },
  {
    source:
      "vllm-project/vllm tests/tool_parsers/test_lfm2_tool_parser.py (a raw newline and a bracket in string arguments)",
    text: "<|tool_call_start|>[exec(command='cat > f.py << EOF\nimport csv\nprint(1)\nEOF'), exec(command='grep -F \"]\" log.txt')]<|tool_call_end|>",
    markup: ["lfm2:exec", "lfm2:exec"],
    tools: ["exec"],
    visible: "",
  },
  {
    source: "vllm-project/vllm tests/tool_parsers/test_lfm2_tool_parser.py (a dotted name)",
    text: "<|tool_call_start|>[grocery.orderIngredients(ingredientList=[{'name': 'Lasagna noodles', 'amount': 250, 'unit': 'g'}], deliveryAddress='845 Willow Lane, Springfield, IL 62704')]<|tool_call_end|>",
    markup: ["lfm2:grocery.orderIngredients"],
    visible: "",
  },
  {
    source:
      "vllm-project/vllm tests/tool_parsers/test_nemotron_json_tool_parser.py (a single object, after a think block)",
    text: '<think>\nI need the weather for Tokyo.\n</think>\n<TOOLCALL>{"name": "lookup", "arguments": {"query": "vllm"}}</TOOLCALL>',
    markup: ["nemotron:lookup"],
    visible: "<think>\nI need the weather for Tokyo.\n</think>\n",
  },
  {
    source: "vllm-project/vllm tests/tool_parsers/test_qwen25_coder_tool_parser.py (two <tools> blocks)",
    text: '<tools>\n{"name": "get_current_weather", "arguments": {"location": "London, UK"}}\n</tools>\n<tools>\n{"name": "search_web", "arguments": {"query": "London events"}}\n</tools>',
    markup: ["hermes:get_current_weather", "hermes:search_web"],
    visible: "\n",
  },
  {
    source: "vllm-project/vllm tests/tool_parsers/test_hy_v3_tool_parser.py (a zero-argument call inline)",
    text: "Checking.<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>",
    markup: ["hunyuan:get_current_date"],
    visible: "Checking.",
  },
  {
    source: "vllm-project/vllm tests/tool_parsers/test_gemma4_tool_parser.py (a string-delimited dict key)",
    text: '<|tool_call>call:get_status{record_map:{<|"|>3<|"|>:<|"|>new text<|"|>}}<tool_call|>',
    markup: ["gemma4:get_status"],
    visible: "",
  },
  {
    source: "ollama/ollama model/parsers/laguna_test.go (the name on its line, then JSON arguments)",
    text: '<tool_call>get_weather\n{"location":"San Francisco"}</tool_call>',
    markup: ["glm:get_weather"],
    visible: "",
  },
  {
    source: "ollama/ollama model/parsers/glm52_test.go (reasoning closed, an answer, then the call)",
    text: "plan</think>Answer<tool_call>calculate<arg_key>count</arg_key><arg_value>3</arg_value><arg_key>enabled</arg_key><arg_value>true</arg_value></tool_call>",
    markup: ["glm:calculate"],
    visible: "plan</think>Answer",
  },
  {
    source: "ollama/ollama#13093 (Goose: qwen3-coder:30b drops the opening <tool_call>)",
    text: "I'll help you explore the contents of your current folder. Let me check what's in there.\n\n<function=developer__shell>\n<parameter=command>\nls -la\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:developer__shell"],
    visible: "I'll help you explore the contents of your current folder. Let me check what's in there.\n\n",
  },
  {
    source: "continuedev/continue#13057 (no closers, values on the tag's line, cut off)",
    text: 'I\'ll create a file called test.txt with the content "hello".\n\n<function=create_new_file>\n<parameter=filepath> test.txt\n<parameter=contents> hello',
    markup: ["qwen3-coder:create_new_file"],
    tools: ["create_new_file", "read_file"],
    visible: 'I\'ll create a file called test.txt with the content "hello".\n\n',
  },
  {
    source: "Zoo-Code-Org/Zoo-Code#1429 (qwen3-coder:30b via Ollama)",
    text: "<function=write_to_file>\n<parameter=path>\nprova.txt\n</parameter>\n<parameter=content>\ntest\n</parameter>\n</function>",
    markup: ["qwen3-coder:write_to_file"],
    tools: ["write_to_file", "read_file", "list_files", "execute_command"],
    visible: "",
  },
  {
    source: "anomalyco/opencode#8851 (Kimi K2 via OpenRouter: spaced tokens, the section closer cut)",
    text: 'I\'ll analyze the tech stack. <|tool_calls_section_begin|> <|tool_call_begin|> functions.bash:0 <|tool_call_argument_begin|> {"command": "ls -la"} <|tool_call_end|> <|tool_call_begin|> functions.glob:1 <|tool_call_argument_begin|> {"pattern": "/.json"} <|tool_call_end|> <|tool_calls_section_end|',
    markup: ["kimi-k2:bash", "kimi-k2:glob"],
    tools: ["bash", "glob", "read"],
    visible: "I'll analyze the tech stack. ",
  },
  // --- Llama 3.2: OpenAI's shape of a call as its content ----------------------------------------------
  {
    source:
      "vllm-project/vllm#11786 (llama3.2-11b-vision-instruct: the call in OpenAI's shape, finish_reason stop)",
    text: '{"type": "function", "function": {"name": "get_current_traffic", "parameters": {"location": "Sydney"}}}',
    markup: ["llama3-json:get_current_traffic"],
    visible: "",
  },
  {
    source: "vllm-project/vllm#11786 (the same shape after prose, a tool that is not offered: text)",
    text: 'Here it is: {"type": "function", "function": {"name": "get_current_traffic", "parameters": {"location": "Sydney"}}}',
    markup: [],
    tools: ["get_weather"],
  },
  // --- Harmony drifting from its header ---------------------------------------------------------------
  {
    source:
      "livekit/agents-js#1632 (gpt-5.4 via LiveKit Inference: stripped header, glitch tokens before json, junk after)",
    text: '  to=functions.saveAnswer  天天中彩票能json\n  {"question":"Who are the most important people in your life?","value":"Wife Patty and their thirteen children"}цҳауеит\n  Patty and thirteen kids — well, that\'s a full house.',
    markup: ["harmony:saveAnswer"],
    visible: "  цҳауеит\n  Patty and thirteen kids — well, that's a full house.",
  },
  {
    source:
      "NVIDIA/TensorRT-LLM#9256 (gpt-oss-120B via trtllm-serve: a commentary message with JSON and no recipient)",
    text: '<|channel|>commentary<|message|>{\n  "path": "/",\n  "name_pattern": "*Chen*",\n  "type_filter": "file"\n}<|end|>',
    markup: ["harmony:?"],
    tools: ["grep", "find"],
    visible: "",
  },
  // --- Kimi K2: a bare counter as the call id names no tool -------------------------------------------
  {
    source: `${VLLM} tests/tool_parsers/test_kimi_k2_tool_parser.py (test_bare_counter: the id is \`0\`)`,
    text: 'Let me check. <|tool_calls_section_begin|><|tool_call_begin|>0 <|tool_call_argument_begin|>{"city": "Tokyo", "unit": "celsius"}<|tool_call_end|><|tool_calls_section_end|>',
    markup: ["kimi-k2:?"],
    tools: ["get_weather"],
    visible: "Let me check. ",
  },
  // --- Laguna's <thought> reasoning ---------------------------------------------------------------------
  {
    source: `${OLLAMA}/laguna_test.go (TestLagunaParserThinkingThenTool)`,
    text: "<thought>Need current weather.</thought>\n<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>SF</arg_value>\n</tool_call>",
    markup: ["glm:get_weather"],
    visible: "<thought>Need current weather.</thought>\n",
  },
  {
    source: `${OLLAMA}/laguna_test.go (TestLagunaParserSplitToolTag: the call inside the unclosed thought)`,
    text: "<thought>Need lookup<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>SF</arg_value>\n</tool_call>",
    markup: ["glm:get_weather"],
    visible: "<thought>Need lookup",
  },
  // --- Hermes: the call in OpenAI's shape inside the envelope -------------------------------------------
  {
    source:
      "a text-tool-call parser's tests (OpenAI's shape in <tool_call>, string arguments; the tests note it \"seen live from Haiku via the CLI\")",
    text: '<tool_call>{"type": "function", "function": {"name": "shell", "arguments": "{\\"command\\": \\"ls\\"}"}}</tool_call>',
    markup: ["hermes:shell"],
    visible: "",
  },
  {
    source:
      "an agent's embedded-call parser tests (the nested OpenAI shape inside a <tool_call> wrapper, after prose)",
    text: 'Let me look.\n<tool_call>{"type": "function", "function": {"name": "get_schema", "parameters": {"dataset_id": "barred-owl"}}}</tool_call>',
    markup: ["hermes:get_schema"],
    visible: "Let me look.\n",
  },
]
