/**
 * The messy real world (issue 13): malformed envelopes are withheld, names are found in the shapes
 * the peer parsers accept, and prose that merely names a header is shown whole. Shapes come from
 * the test suites of vLLM (`tests/tool_parsers`), SGLang (`test/srt/test_function_call_parser.py`),
 * llama.cpp (`tests/test-chat.cpp`) and Ollama (`model/parsers/*_test.go`) and from public bug
 * reports. Every call shape also has its fenced, inline-code and indented-code twin: an example.
 */
import { describe, expect, test } from "vitest"
import { isRecoverable, type Markup, scan } from "../src/index.ts"
import { brief, chars, feed, reassemble } from "./helpers.ts"

const tools = ["read_file", "get_weather", "bash", "get current temperature"]
const options = { tools }

/** The markup of `text`, checked to be split-invariant and lossless. */
function detect(text: string): { text: string; markup: readonly Markup[] } {
  const whole = scan(text, options)
  expect(feed(chars(text), options)).toMatchObject(whole)
  expect(reassemble(text, whole)).toBe(text)
  return whole
}

const twins = (call: string): [string, string][] => [
  ["fenced", `Like this:\n\n\`\`\`\n${call}\n\`\`\`\n`],
  ["inline code", `Write \`\`${call.replace(/\n/g, " ")}\`\` exactly.`],
  ["indented code", `Like this:\n\n${call.replace(/^/gm, "    ")}\n`],
]

/** Each call shape: the text, what must be reported, and what must stay visible. */
interface Shape {
  readonly name: string
  readonly text: string
  readonly markup: readonly string[]
  readonly visible: string
}

const withheld: readonly Shape[] = [
  // Class 1: envelope tokens are never left on the screen.
  {
    name: "DeepSeek envelope followed directly by a name (per-call markers missing)",
    text: '<｜tool▁calls▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    markup: ["deepseek-v3:get_weather open,close,struct"],
    visible: "",
  },
  {
    name: "DeepSeek envelope cut off right after its opener",
    text: "Let me check.\n<｜tool▁calls▁begin｜>",
    markup: ["deepseek-v3:?(not offered) open,cut"],
    visible: "Let me check.\n",
  },
  {
    name: "DeepSeek `function<｜tool▁sep｜>NAME` without <｜tool▁call▁begin｜>",
    text: 'Ok.\nfunction<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜>',
    markup: ["deepseek-v3:get_weather struct"],
    visible: "Ok.\n",
  },
  {
    name: "DeepSeek per-call marker with `function.NAME` (TensorRT-LLM's spelling)",
    text: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function.get_weather\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    markup: ["deepseek-v3:get_weather open,close,struct"],
    visible: "",
  },
  {
    name: "Step3 <steptml:invoke> without the function<｜tool_sep｜> prefix (SGLang step3 detector)",
    text: '<｜tool_calls_begin｜>\n<｜tool_call_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter></steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>',
    markup: ["step3:get_weather open,close,struct"],
    visible: "",
  },
  {
    name: "a <tool_call> envelope around a malformed function header, next to a good call",
    text: "<tool_call>\n<function=get weather\n</tool_call>\n<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:?(not offered) open,close", "qwen3-coder:read_file open,close,struct"],
    visible: "\n",
  },
  {
    name: "a corrupted opener (a doubled `>`) right before a real call",
    text: "<tool_call>>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:read_file open,close,struct"],
    visible: "",
  },
  {
    name: "a corrupted opener (a suffixed marker) right before a real call",
    text: "<tool_call_1>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>",
    markup: ["qwen3-coder:read_file open,close,struct"],
    visible: "",
  },
  {
    name: "a stray </tool_call> after a call",
    text: '<tool_call>\n{"name": "read_file", "arguments": {}}\n</tool_call>\n</tool_call>\nDone.',
    markup: ["hermes:read_file open,close,struct"],
    visible: "\nDone.",
  },
  {
    name: "a stray [END_TOOL_REQUEST] after an LM Studio request",
    text: '[TOOL_REQUEST]{"name": "read_file", "arguments": {}}[END_TOOL_REQUEST]\n[END_TOOL_REQUEST]\nDone.',
    markup: ["lmstudio:read_file open,close,struct"],
    visible: "\nDone.",
  },
  {
    name: "a stray [TOOL_REQUEST_END] after Gemma 3's name-first request",
    text: '[TOOL_REQUEST]\nread_file {"path": "a"}\n[TOOL_REQUEST_END]\n[TOOL_REQUEST_END]\nDone.',
    markup: ["lmstudio:read_file open,close,struct"],
    visible: "\nDone.",
  },
  {
    name: "an orphan [END_TOOL_REQUEST] after a call object whose [TOOL_REQUEST] was dropped",
    text: 'Sure.\n{"name": "read_file", "arguments": {}}\n[END_TOOL_REQUEST]\nDone.',
    markup: ["llama3-json:read_file close,struct"],
    visible: "Sure.\n\nDone.",
  },
  {
    name: "LM Studio's markers alone in prose: its prompt's plain text, not special tokens",
    text: "LM Studio wraps calls in [TOOL_REQUEST] and [END_TOOL_REQUEST] (or [TOOL_REQUEST_END]) markers.\n[END_TOOL_REQUEST]\n[TOOL_REQUEST] read_file then prose.",
    markup: [],
    visible:
      "LM Studio wraps calls in [TOOL_REQUEST] and [END_TOOL_REQUEST] (or [TOOL_REQUEST_END]) markers.\n[END_TOOL_REQUEST]\n[TOOL_REQUEST] read_file then prose.",
  },
  {
    name: "a stray <|tool_call_end|> after a Kimi section",
    text: "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>\n<|tool_call_end|>\nDone.",
    markup: ["kimi-k2:read_file open,close,struct", "kimi-k2:?(not offered) close"],
    visible: "\n\nDone.",
  },
  {
    name: "a lone special token with an offered name in its slot",
    text: "Sure.[TOOL_CALLS]get_weather and then prose.",
    markup: ["mistral:get_weather open,cut"],
    visible: "Sure.get_weather and then prose.",
  },
  // Class 2: names found in the shapes the peers parse.
  {
    name: "Mistral v13 [CALL_ID] between the name and [ARGS] (vLLM mistral parser)",
    text: '[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}',
    markup: ["mistral:get_weather open,struct"],
    visible: "",
  },
  {
    name: "Anthropic XML with any namespace prefix",
    text: '<x:function_calls>\n<x:invoke name="read_file">\n<x:parameter name="path">a</x:parameter>\n</x:invoke>\n</x:function_calls>',
    markup: ["anthropic-xml:read_file open,close,struct"],
    visible: "",
  },
  {
    name: "a bare namespaced <invoke>",
    text: 'Reading.\n<tool:invoke name="read_file">\n<tool:parameter name="path">a</tool:parameter>\n</tool:invoke>',
    markup: ["anthropic-xml:read_file struct"],
    visible: "Reading.\n",
  },
  {
    name: "namespaced XML after a Harmony `to=NAME<|message|>` header",
    text: '<|start|>assistant to=read_file<|message|><x:invoke name="read_file"><x:parameter name="path">a</x:parameter></x:invoke>',
    markup: ["harmony:read_file open", "anthropic-xml:read_file struct"],
    visible: "",
  },
  {
    name: "GLM <tool_call>NAME followed by malformed arg tags",
    text: "<tool_call>read_file <arg_value>a</arg_value></arg_key></tool_call>",
    markup: ["glm:read_file open,close,struct"],
    visible: "",
  },
  {
    name: "Llama 3 JSON after a prose preface, `;`-separated (SGLang llama32 detector)",
    text: 'Let me check both.\n{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "read_file", "arguments": {"path": "a"}}',
    markup: ["llama3-json:get_weather struct", "llama3-json:read_file struct"],
    visible: "Let me check both.\n",
  },
  {
    name: "a quoted name with spaces (llama.cpp's Functionary tests)",
    text: '<function="get current temperature">\n<parameter=location>\nParis\n</parameter>\n</function>',
    markup: ["qwen3-coder:get current temperature struct"],
    visible: "",
  },
]

describe("malformed calls: withheld, named", () => {
  for (const shape of withheld) {
    describe(shape.name, () => {
      test("withheld and reported", () => {
        const result = detect(shape.text)
        expect(result.markup.map(brief)).toEqual(shape.markup)
        expect(result.text).toBe(shape.visible)
      })
      test.each(twins(shape.text))("its %s twin is an example", (_, text) => {
        expect(detect(text)).toMatchObject({ text, markup: [] })
      })
    })
  }

  test("a name in a lone token's slot is reported only when offered", () => {
    expect(detect("[TOOL_CALLS]wipe_disk now").markup.map(brief)).toEqual(["mistral:?(not offered) open,cut"])
    expect(isRecoverable(detect("[TOOL_CALLS]get_weather now").markup[0]!)).toBe(true)
  })
})

describe("prose is never swallowed", () => {
  test.each([
    ["Qwen models emit <function=read_file> followed by parameters, then </parameter>."],
    ['A bare <invoke name="read_file"> in prose, and the rest of the answer.'],
    ["The endpoint /api/<function=read_file>/status returns 200."],
    ["<|start|>assistant to=functions.bash and more prose after it."],
    ["The model writes to=functions.bash when it means the tool."],
    ["Use <tool_call> tags only for calls; <function_calls> is Claude's."],
    ["Qwen wraps calls as <tool_call> <function=name … and the rest of this answer stays."],
    ["Qwen wraps calls as <tool_call> <function=read_file> and the rest of this answer stays."],
    ['Here: {"name": "get_weather"} is the shape, with "parameters" after it.'],
    ["Usage: tool [OPTIONS] [ARGS] (Mistral's [ARGS] and [CALL_ID] alone are not envelope tokens)."],
    ["The <function=read_file> header, with no parameter after it."],
    // A pythonic list after prose needs an offered name and keyword arguments (or none).
    ["Markdown [links](https://example.com), [get_weather] alone and [x] boxes stay prose."],
    ["Python indexes like items[get_weather(0)] or rows[len(rows) - 1] stay prose."],
    ["Call [get_time(tz='CET')] only if it is offered."],
    // JSON data that merely has a "name" is no call: a call object names its arguments too.
    ['{"name": "my-app", "version": "1.0.0", "private": true}'],
    ['[{"name": "Alice", "age": 30}, {"name": "Bob", "age": 25}]'],
    // GigaChat's role needs its `<|role_sep|>` or a call object glued to it.
    ["A function call {like this} or a function call{x} is prose."],
    // The extra Hermes wrappers need a call object (`"name"` first) right inside.
    ['The API answers <response>{"status": "ok"}</response> and <json>{"a": 1}</json>.'],
  ])("%j is shown whole", (text) => {
    expect(detect(text)).toMatchObject({ text, markup: [] })
  })

  test("Harmony's header in prose is not recoverable (and not withheld)", () => {
    const text = "<|start|>assistant to=functions.bash and more…"
    expect(detect(text).markup).toEqual([])
  })

  test("a bare header confirmed by its structure is a call", () => {
    expect(detect("<function=read_file>\n</function>").markup.map(brief)).toEqual([
      "qwen3-coder:read_file struct",
    ])
    expect(
      detect('<|start|>assistant to=functions.bash<|message|>{"cmd": "ls"}<|call|>').markup.map(brief),
    ).toEqual(["harmony:bash open,close,struct"])
  })
})
