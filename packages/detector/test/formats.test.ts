import { describe, expect, test } from "vitest"
import { type FormatId, formats, isRecoverable, scan } from "../src/index.ts"
import { brief, chars, feed, reassemble } from "./helpers.ts"

/** Formats with no envelope of their own: bare JSON or pythonic at the start of the response. */
const ANCHORED = new Set<FormatId>(["llama3-json", "xlam", "pythonic"])
/** Formats with no envelope at all: each call stands alone, neither marker is seen. */
const NO_ENVELOPE = new Set<FormatId>(["minicpm5"])
/** Formats whose example ends without a closing envelope marker (the payload's end ends the call). */
const NO_CLOSER = new Set<FormatId>([
  "mistral",
  "llama3-json",
  "pythonic",
  "granite",
  "xlam",
  "phi4-functools",
  "gigachat3",
])

/** Two calls in one response, in each format's own way of writing several. */
const MULTI: Partial<Record<FormatId, string>> = {
  "llama3-json":
    '{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_time", "parameters": {"tz": "CET"}}',
  xlam: '[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {"tz": "CET"}}]',
  pythonic: '[get_weather(city="Paris"), get_time(tz="CET")]',
  "deepseek-v3":
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"location": "Tokyo"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{"tz": "CET"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  "kimi-k2":
    '<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>\n<|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|>\n<|tool_calls_section_end|>',
  "minimax-m2":
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n<invoke name="get_time">\n</invoke>\n</minimax:tool_call>',
  hermes:
    '<tool_call>\n[{"name": "get_weather", "arguments": {}}, {"name": "get_time", "arguments": {}}]\n</tool_call>',
  "qwen3-coder":
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n<function=get_time>\n</function>\n</tool_call>",
  mistral:
    '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]',
  olmo3: '<function_calls>get_weather(location="NYC")\nget_time(tz="CET")</function_calls>',
  lfm2: '<|tool_call_start|>[get_weather(location="Paris"), get_time()]<|tool_call_end|>',
  apertus: '<|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"get_time": {}}]<|tools_suffix|>',
}

const rename = (example: string, from: string, to: string): string => example.split(from).join(to)

describe.each(formats.map((f) => [f.id, f] as const))("%s", (id, f) => {
  const tools = [f.exampleTool, "get_time"]
  const options = { tools, formats: [id] }
  const start = id === "harmony" ? f.example.indexOf("<|start|>") : 0

  test("the catalogue example is one call, withheld whole", () => {
    const result = scan(f.example, options)
    expect(result.markup.map(brief)).toEqual([expect.stringContaining(`${id}:${f.exampleTool} `)])
    const [m] = result.markup
    expect(m).toMatchObject({
      format: id,
      toolName: f.exampleTool,
      offered: true,
      opening: !ANCHORED.has(id) && !NO_ENVELOPE.has(id),
      closing: !NO_CLOSER.has(id) && !NO_ENVELOPE.has(id),
      structured: true,
      complete: true,
      inReasoning: false,
      answerFollows: false,
      start,
      end: f.example.length,
    })
    expect(result.text).toBe(f.example.slice(0, start))
    expect(isRecoverable(m!)).toBe(true)
  })

  test("with the default formats too (Apriel writes what Jamba writes)", () => {
    if (id === "cline-xml") return expect(scan(f.example, { tools }).markup).toEqual([])
    const [m] = scan(f.example, { tools }).markup
    expect(m?.format).toBe(id === "apriel" ? "jamba" : id)
    expect(m?.toolName).toBe(f.exampleTool)
  })

  test("between prose, one character at a time: the prose stays, the call is withheld", () => {
    const before = ANCHORED.has(id) ? "" : "Let me check that for you.\n\n"
    const text = `${before}${f.example}\n\nDone.`
    const whole = scan(text, options)
    expect(whole.text).toBe(`${before}${f.example.slice(0, start)}\n\nDone.`)
    expect(whole.markup).toHaveLength(1)
    expect(reassemble(text, whole)).toBe(text)
    expect(feed(chars(text), options)).toMatchObject({ text: whole.text, markup: whole.markup })
  })

  test("truncated mid-call: reported, not complete, nothing shown", () => {
    const cut = f.example.indexOf(f.exampleTool, start) + f.exampleTool.length + 8
    const text = f.example.slice(0, Math.min(cut, f.example.length - 2))
    const result = scan(text, options)
    expect(result.markup).toHaveLength(1)
    expect(result.markup[0]).toMatchObject({ format: id, complete: false, end: text.length })
    expect(result.text).toBe(text.slice(0, start))
  })

  test("an unknown tool is reported but never recoverable", () => {
    const text = rename(f.example, f.exampleTool, "rm_rf_everything")
    const result = scan(text, options)
    for (const m of result.markup) expect(isRecoverable(m)).toBe(false)
  })

  test("two calls in one response, in order", () => {
    const text = MULTI[id] ?? `${f.example}\n${rename(f.example, f.exampleTool, "get_time")}`
    const result = scan(text, options)
    const names = MULTI[id] === undefined ? [f.exampleTool, "get_time"] : ["get_weather", "get_time"]
    expect(result.markup.map((m) => m.toolName)).toEqual(names)
    expect(reassemble(text, result)).toBe(text)
    expect(feed(chars(text), options).markup).toEqual(result.markup)
  })

  test("inside a fenced code block it is an example, not a call", () => {
    const text = `Like this:\n\n\`\`\`\n${f.example}\n\`\`\`\n`
    expect(scan(text, options)).toMatchObject({ text, markup: [] })
  })
})
