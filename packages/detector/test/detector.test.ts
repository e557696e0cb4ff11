import { describe, expect, test } from "vitest"
import { createDetector, isRecoverable, type Markup, scan } from "../src/index.ts"
import { brief, chars, feed, reassemble } from "./helpers.ts"

const tools = ["read_file", "Bash", "get_weather", "shell", "exec_command"]
const names = (markup: readonly Markup[]): (string | undefined)[] => markup.map((m) => m.toolName)

describe("Qwen3-Coder without its opening envelope", () => {
  const call = "<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>"

  test("a bare call to an offered tool is markup with opening: false", () => {
    const { text, markup } = scan(`Reading.\n${call}\nDone.`, { tools })
    expect(text).toBe("Reading.\n\nDone.")
    expect(markup.map(brief)).toEqual(["qwen3-coder:read_file struct"])
  })

  test("a following orphan </tool_call> is absorbed and sets closing", () => {
    const { text, markup } = scan(`${call}\n \n</tool_call>\nDone.`, { tools })
    expect(text).toBe("\nDone.")
    expect(markup.map(brief)).toEqual(["qwen3-coder:read_file close,struct"])
  })

  test.each([
    ["#include <functional>\nint main() {}"],
    ["The <function> keyword and <function=> and <function=read_file are prose."],
    ["<function={{ tc.name }}>\n<parameter=x>1</parameter>\n</function>"],
    ["<function=delete_everything>\n<parameter=path>/</parameter>\n</function>"],
  ])("stays text: %j", (text) => {
    expect(scan(text, { tools })).toMatchObject({ text, markup: [] })
  })

  test("without a tool list, any valid identifier counts (never offered)", () => {
    const [m] = scan(call, {}).markup
    expect(m).toMatchObject({ toolName: "read_file", offered: false })
    expect(isRecoverable(m!)).toBe(false)
  })

  test("a call cut off before </function> runs to the end (continuedev/continue#13057)", () => {
    const text = "I'll create it.\n\n<function=read_file>\n<parameter=path> a.ts\n<parameter=mode> r"
    const { markup } = scan(text, { tools })
    expect(markup.map(brief)).toEqual(["qwen3-coder:read_file struct,cut"])
    expect(markup[0]!.end).toBe(text.length)
  })

  test("an envelope without a call inside stays text (vLLM: a bare <tool_call> in narrative)", () => {
    const text = "Models print <tool_call> tags when they are confused.\n<tool_call>\nthen prose."
    expect(scan(text, { tools })).toMatchObject({ text, markup: [] })
  })
})

describe("Markdown", () => {
  const call = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>'

  test.each([
    ["backtick fence", `\`\`\`xml\n${call}\n\`\`\`\nafter`],
    ["tilde fence", `~~~\n${call}\n~~~\nafter`],
    ["indented fence (3 spaces)", `   \`\`\`\n${call}\n   \`\`\`\nafter`],
    ["longer closing fence", `\`\`\`\n${call}\n\`\`\`\`\`\nafter`],
    ["unclosed fence runs to the end", `\`\`\`\n${call}\nstill code`],
    ["a fence line with text after the run does not close", `\`\`\`\n\`\`\` not a closer\n${call}\n\`\`\`\n`],
    ["tildes do not close a backtick fence", `\`\`\`\n~~~\n${call}\n\`\`\`\n`],
    ["inline code", `Write \`${call.replace(/\n/g, " ")}\` exactly.`],
    [
      "double-backtick inline code with a backtick inside",
      `Write \`\` \`x\` ${call.replace(/\n/g, " ")} \`\` exactly.`,
    ],
    ["a code span across lines of one paragraph", `Use \`\n${call}\n\` like that.`],
  ])("%s: an example, not a call", (_, text) => {
    const result = scan(text, { tools })
    expect(result).toMatchObject({ text, markup: [] })
    expect(feed(chars(text), { tools })).toMatchObject(result)
  })

  test.each([
    ["a stray backtick", `Press the \` key.\n${call}\nDone.`],
    ["a stray backtick, then a blank line", `Press \`\`\`the key.\n\n${call}\nDone.`],
    [
      "a stray backtick whose run recurs after a blank line and the call",
      `Press the \` key.\n\n${call}\nThen \` again.`,
    ],
    ["a backtick fence whose info string has a backtick is no fence", `\`\`\`a\`b\n${call}\nDone.`],
    ["four spaces of indent is no fence", `    \`\`\`\n${call}\nDone.`],
    ["a closed fence before", `\`\`\`\ncode\n\`\`\`\n${call}\nDone.`],
  ])("%s never hides a later real call", (_, text) => {
    const result = scan(text, { tools })
    expect(names(result.markup)).toEqual(["read_file"])
    expect(reassemble(text, result)).toBe(text)
    expect(feed(chars(text), { tools })).toMatchObject(result)
  })

  test("fence tracking is suspended inside an envelope (DeepSeek R1's ```json, a README parameter)", () => {
    const text =
      "<tool_call>\n<function=read_file>\n<parameter=content>\n# Title\n```ts\nconst a = 1\n" +
      "</parameter>\n</function>\n</tool_call>\nVisible."
    const result = scan(text, { tools })
    expect(result.text).toBe("\nVisible.")
    expect(result.markup.map(brief)).toEqual(["qwen3-coder:read_file open,close,struct"])
  })
})

describe("reasoning", () => {
  const call = '<tool_call>{"name": "read_file", "arguments": {}}</tool_call>'

  test("a rehearsal inside <think> followed by an answer is not recoverable", () => {
    const result = scan(`<think>I could call ${call} here.</think>\n\nThe answer is 4.`, { tools })
    expect(result.markup.map(brief)).toEqual(["hermes:read_file open,close,struct,think,answered"])
    expect(isRecoverable(result.markup[0]!)).toBe(false)
    expect(isRecoverable(result.markup[0]!, { reasoning: "recover" })).toBe(true)
  })

  // Found by @tool-rescue/testing's response property: an answer that the detector holds until
  // the end (a word that may start a marker, such as DeepSeek's bare `function<｜tool▁sep｜>`) is
  // still an answer that follows the reasoning.
  test.each(["function", "func", "<invo", "The answer is `"])(
    "an answer held until the end (%j) still makes the rehearsal answered, under any chunking",
    (answer) => {
      const text = `<think>\n${call}\n</think>\n\n${answer}`
      for (const result of [scan(text, { tools }), feed(chars(text), { tools })]) {
        expect(result.markup.map(brief)).toEqual(["hermes:read_file open,close,struct,think,answered"])
        expect(result.text).toBe(`<think>\n\n</think>\n\n${answer}`)
      }
    },
  )

  test("a call inside reasoning with nothing after it is recoverable (Kimi-K2-Thinking, MiniMax)", () => {
    const result = scan(`<think>Let me read it. ${call}</think>\n`, { tools })
    expect(result.markup.map(brief)).toEqual(["hermes:read_file open,close,struct,think"])
    expect(isRecoverable(result.markup[0]!)).toBe(true)
    expect(isRecoverable(result.markup[0]!, { reasoning: "ignore" })).toBe(false)
  })

  test("an unclosed reasoning block ends the stream: no answer follows", () => {
    const result = scan(`<think>Let me read it. ${call}`, { tools })
    expect(result.markup.map(brief)).toEqual(["hermes:read_file open,close,struct,think"])
  })

  test("a reasoning closer inside open markup ends the markup (truncated)", () => {
    const result = scan(`<think><tool_call>{"name": "read_file", </think>Answer.`, { tools })
    expect(result.markup.map(brief)).toEqual(["hermes:read_file open,cut,think,answered"])
    expect(result.text).toBe("<think></think>Answer.")
  })

  test("markup is reported in stream order even when an earlier one waits for its answer", () => {
    const d = createDetector({ tools })
    const a = d.push(`<think>${call}</think>\n`)
    const b = d.push(call.replace("read_file", "Bash"))
    expect([...a.markup, ...b.markup]).toEqual([])
    const c = d.end()
    expect(names(c.markup)).toEqual(["read_file", "Bash"])
  })

  test.each([
    ["[THINK]", "[/THINK]", "mistral" as const],
    ["<seed:think>", "</seed:think>", "seed-oss" as const],
    ["<thinking>", "</thinking>", "apriel" as const],
    ["<|START_THINKING|>", "<|END_THINKING|>", "command-r7b" as const],
    ["<|channel>thought\n", "<channel|>", "gemma4" as const],
  ])("%s … %s marks markup inReasoning", (open, close, format) => {
    const result = scan(`${open}${call}${close}Answer.`, { tools, formats: ["hermes", format] })
    expect(result.markup.map(brief)).toEqual(["hermes:read_file open,close,struct,think,answered"])
  })

  test("a fence left open in reasoning does not swallow the real call after it", () => {
    const result = scan(`<think>\n\`\`\`\nsketch\n</think>\n${call}`, { tools })
    expect(result.markup.map(brief)).toEqual(["hermes:read_file open,close,struct"])
  })

  test("start-anchored JSON counts right after a reasoning block; after prose only as a Llama call to an offered tool", () => {
    const json = '{"name": "get_weather", "parameters": {"city": "Paris"}}'
    expect(names(scan(`<think>plan</think>\n\n${json}`, { tools }).markup)).toEqual(["get_weather"])
    expect(names(scan(`Here: ${json}`, { tools }).markup)).toEqual(["get_weather"])
    for (const prose of [
      'Here: {"name": "wipe_disk", "parameters": {}}',
      'Here: {"name": "get_weather", "city": "Paris"}',
      'Here: {"name": "get_weather"}',
    ])
      expect(scan(prose, { tools })).toMatchObject({ text: prose, markup: [] })
    expect(names(scan(`  \n${json}`, { tools }).markup)).toEqual(["get_weather"])
    expect(names(scan(`<think>plan</think>\n${json}`, { tools }).markup)).toEqual(["get_weather"])
    expect(names(feed(chars(`<think>plan</think>\n${json}`), { tools }).markup)).toEqual(["get_weather"])
  })
})

describe("reasoning opened by the chat template (the opener is in the prompt, the closer alone in the output)", () => {
  const unknown = '{"name": "wipe_disk", "parameters": {}}'

  test.each([
    ['[{"name": "get_weather", "arguments": {"city": "Paris"}}]', "xlam:get_weather"],
    ["[get_weather(city='Paris')]", "pythonic:get_weather"],
    [unknown, "llama3-json:wipe_disk"],
  ])("a closer with no opener, ending its line, starts the answer: %s", (answer, found) => {
    for (const before of ["Plan: check Paris.", "Plan.\n", ""]) {
      const text = `${before}</think>\n\n${answer}`
      for (const result of [scan(text, { tools }), feed(chars(text), { tools })]) {
        expect(result.markup.map((m) => `${m.format}:${m.toolName}`)).toEqual([found])
        expect(result.markup[0]!.inReasoning).toBe(false)
        expect(result.text).toBe(`${before}</think>\n\n`)
      }
    }
  })

  test.each([
    // Named mid-sentence: its line goes on, so no answer starts after it.
    `Close the block with </think> then ${unknown}`,
    `Close the block with </think>${unknown}`,
    // Only the first closer, and only before any reasoning marker, can end a block the template opened.
    `Plan.</think>\nThe answer.</think>\n${unknown}`,
    `<think>Plan.</think>\nThe answer.</think>\n${unknown}`,
    // Code is an example.
    `\`\`\`\nPlan.</think>\n${unknown}\n\`\`\``,
  ])("no answer starts after %j: the text is shown whole", (text) => {
    expect(scan(text, { tools })).toMatchObject({ text, markup: [] })
    expect(feed(chars(text), { tools })).toMatchObject({ text, markup: [] })
  })

  test.each([
    // Special tokens end the block wherever they stand: Magistral's template opens `[THINK]`
    // (vLLM's mistral reasoning parser is DeepSeek-R1's: no start token needed), Seed-OSS's
    // `<seed:think>` (llama.cpp forces it open when the prompt ends with it).
    ["[/THINK]", "mistral" as const],
    ["</seed:think>", "seed-oss" as const],
  ])("a lone %s starts the answer, on its line or the next", (closer, format) => {
    const answer = '[{"name": "wipe_disk", "arguments": {}}]'
    for (const gap of ["", "\n\n"]) {
      const text = `Plan: check Paris.${closer}${gap}${answer}`
      for (const options of [{ tools }, { tools, formats: ["xlam" as const, format] }])
        for (const result of [scan(text, options), feed(chars(text), options)]) {
          expect(result.markup.map((m) => `${m.format}:${m.toolName}`)).toEqual(["xlam:wipe_disk"])
          expect(result.text).toBe(`Plan: check Paris.${closer}${gap}`)
        }
    }
  })

  test.each([
    ['[{"name": "wipe_disk", "arguments": {}}]', "xlam:wipe_disk"],
    [' [{"name": "get_weather", "arguments": {"city": "Paris"}}]', "xlam:get_weather"],
  ])("a JSON call list glued to a lone </think> starts the answer whole: %s", (answer, found) => {
    // Before, an offered tool's object inside it was read as a Llama call and `[]` shown; an
    // unknown tool's list was prose.
    for (const before of ["Plan: check Paris.", "Plan.\n", ""]) {
      const text = `${before}</think>${answer}`
      for (const result of [scan(text, { tools }), feed(chars(text), { tools })]) {
        expect(result.markup.map((m) => `${m.format}:${m.toolName}`)).toEqual([found])
        expect(result.text).toBe(`${before}</think>${answer.startsWith(" ") ? " " : ""}`)
      }
    }
  })

  test("a call before the closer stays a call outside reasoning: it was reported, and the text around it shown, before the closer came", () => {
    // (vLLM's Qwen3 parser, too, reads a `<tool_call>` before any `</think>` as the end of the reasoning.)
    const call = '<tool_call>{"name": "read_file", "arguments": {}}</tool_call>'
    const text = `I could call ${call} here.\n</think>\n\n[get_weather(city='Paris')]`
    const result = scan(text, { tools })
    expect(result.markup.map(brief)).toEqual([
      "hermes:read_file open,close,struct",
      "pythonic:get_weather struct",
    ])
    expect(result.text).toBe("I could call  here.\n</think>\n\n")
  })
})

describe("spellings from peers' tests", () => {
  test("a GLM-4.7 call naming an offered tool with spaces in its name (Poolside Laguna, vLLM poolside_v1)", () => {
    const args = "<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>"
    for (const head of [
      "<tool_call>get weather",
      "<tool_call>  get weather  ",
      "<tool_call>\nget weather ",
    ]) {
      const text = `Checking.${head}${args}`
      for (const result of [
        scan(text, { tools: ["get weather"] }),
        feed(chars(text), { tools: ["get weather"] }),
      ]) {
        expect(result.markup.map(brief)).toEqual(["glm:get weather open,close,struct"])
        expect(result.text).toBe("Checking.")
      }
    }
  })

  test.each([
    "Put the <tool_call> tag before <arg_key>city</arg_key>.",
    "Use <tool_call> then </tool_call> around it.",
    "Wrap it: <tool_call> get weather </tool_call> and so on.",
    "<tool_call> the forecast <arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
  ])("words before a tag are prose unless they spell an offered tool: %j", (text) => {
    for (const tools of [[], ["get_weather"], ["get weather"]]) {
      expect(scan(text, { tools })).toMatchObject({ text, markup: [] })
      expect(feed(chars(text), { tools })).toMatchObject({ text, markup: [] })
    }
  })

  test("Gemma 4's call without its <|tool_call> ends where its braces close; an orphan closer joins it", () => {
    const Q = '<|"|>'
    const cases: [string, string[], string[], string][] = [
      [
        `Reading.\ncall:read_file{path:${Q}a.ts${Q}}\nThen more.`,
        tools,
        ["gemma4:read_file struct"],
        "Reading.\n\nThen more.",
      ],
      [`call:read_file{path:${Q}a.ts${Q}}<tool_call|>`, tools, ["gemma4:read_file close,struct"], ""],
      // Not offered: the orphan envelope token confirms it (withheld, not recoverable).
      [`Hm.\ncall:wipe{}<tool_call|>`, tools, ["gemma4:wipe(not offered) close,struct"], "Hm.\n"],
      // Prose: not at a line's start, no arguments opened, or a name no offered tool has.
      [`You can call:read_file{path:${Q}a${Q}} later.`, tools, [], ""],
      ["call:me{maybe} tonight", tools, [], ""],
      [`call:wipe{path:${Q}a${Q}}`, tools, [], ""],
    ]
    for (const [text, offered, found, shown] of cases)
      for (const result of [scan(text, { tools: offered }), feed(chars(text), { tools: offered })]) {
        expect(result.markup.map(brief)).toEqual(found)
        expect(result.text).toBe(found.length === 0 ? text : shown)
      }
  })

  test("a Python dict in Hermes' envelope (RWKV's legacy calls): its strings in either quote, the other one inside them", () => {
    const dict = "{'arguments': {'q': 'say \"hi\", it\\'s {x}'}, 'name': 'read_file', 'type': 'tool_call'}"
    for (const text of [`Looking.\n<tool_call>\n${dict}\n`, `Looking.\n<tool_call>${dict}</tool_call>`]) {
      for (const result of [scan(text, { tools }), feed(chars(text), { tools })]) {
        expect(result.markup.map((m) => `${m.format}:${m.toolName}:${m.structured}`)).toEqual([
          "hermes:read_file:true",
        ])
        expect(result.text).toBe("Looking.\n")
      }
    }
    // JSON with apostrophes in its strings reads as before.
    const json = `<tool_call>{"name": "Bash", "arguments": {"command": "echo 'it''s'"}}</tool_call>Done.`
    expect(scan(json, { tools })).toMatchObject({
      text: "Done.",
      markup: [{ toolName: "Bash", closing: true }],
    })
  })

  test("dots' call object whose opener was dropped: its closer joins the call and names the format", () => {
    // Before: a Llama object, the closer shown.
    const text = 'Done.\n{"name": "get_weather", "arguments": {"city": "Paris"}}</dots_function_call>'
    for (const result of [scan(text, { tools }), feed(chars(text), { tools })]) {
      expect(result.markup.map(brief)).toEqual(["dots:get_weather close,struct"])
      expect(result.text).toBe("Done.\n")
    }
  })
})

describe("Harmony (gpt-oss)", () => {
  test("analysis is reasoning; a message to=functions.NAME is a call whatever its channel", () => {
    const text =
      '<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>analysis to=functions.get_weather<|message|>{"city":"Berlin"}<|call|>'
    const result = scan(text, { tools })
    expect(result.markup.map(brief)).toEqual(["harmony:get_weather open,close,struct"])
    expect(result.text).toBe("<|channel|>analysis<|message|>Need weather.<|end|>")
  })

  test("recipient before the channel (llama.cpp tool_call1 form)", () => {
    const text =
      '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>'
    expect(scan(text, { tools }).markup.map(brief)).toEqual(["harmony:get_weather open,close,struct"])
  })

  test("special tokens stripped, and a recipient glued to its constraint (llama.cpp PR #15158)", () => {
    const text = 'analysisThe user wants a listing.assistantcommentary to=functions.shelljson{"cmd":["ls"]}'
    const result = scan(text, { tools })
    expect(result.markup.map(brief)).toEqual(["harmony:shell open,struct"])
    expect(result.text).toBe("analysisThe user wants a listing.assistantcommentary ")
  })

  test("a bare recipient inside analysis text is reasoning; after a stripped `assistant` it is a call", () => {
    const mention =
      '<|channel|>analysis<|message|>Use to=functions.get_weather {"city":"Paris"} now.<|end|>Done.'
    expect(scan(mention, { tools }).markup.map(brief)).toEqual([
      "harmony:get_weather open,struct,think,answered",
    ])
    const stripped = 'analysisNeed the weather.assistant to=functions.get_weather json{"city":"Paris"}'
    const result = scan(stripped, { tools })
    expect(result.markup.map(brief)).toEqual(["harmony:get_weather open,struct"])
    expect(result.text).toBe("analysisNeed the weather.assistant ")
  })

  test("a header cut off before its payload is truncated", () => {
    const result = scan("<|channel|>commentary to=functions.get_weather <|constr", { tools })
    expect(result.markup.map(brief)).toEqual(["harmony:get_weather open,cut"])
  })
})

describe("marker variants", () => {
  test.each([
    [
      "<｜tool calls begin｜><｜tool call begin｜>get_weather<｜tool sep｜>{}<｜tool call end｜><｜tool calls end｜>",
    ],
    ["<|tool▁calls▁begin|><|tool▁call▁begin|>get_weather<|tool▁sep|>{}<|tool▁call▁end|><|tool▁calls▁end|>"],
    [
      "<｜tool\\_calls\\_begin｜><｜tool\\_call\\_begin｜>get_weather<｜tool\\_sep｜>{}<｜tool\\_call\\_end｜><｜tool\\_calls\\_end｜>",
    ],
    [
      "<｜tool▁calls｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ],
    ["<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{}<｜tool▁call▁end｜>"],
  ])("DeepSeek spelling %s", (text) => {
    const [m] = scan(text, { tools }).markup
    expect(m).toMatchObject({ format: "deepseek-v3", toolName: "get_weather", complete: true })
  })

  test("Kimi's singular section marker, and a lone per-call marker (not the envelope: FORMATS.md)", () => {
    const section =
      "<|tool_call_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_section_end|>"
    expect(scan(section, { tools }).markup.map(brief)).toEqual(["kimi-k2:get_weather open,close,struct"])
    const lone = "<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
    expect(scan(lone, { tools }).markup.map(brief)).toEqual(["kimi-k2:get_weather struct"])
  })

  test("antml:-prefixed Anthropic tags, <param name=…>, and a bare <invoke> (anthropics/claude-code#71487)", () => {
    const p = "antml" + ":"
    const prefixed = `<${p}function_calls><${p}invoke name="read_file"><${p}parameter name="path">a</${p}parameter></${p}invoke></${p}function_calls>`
    expect(scan(prefixed, { tools }).markup.map(brief)).toEqual(["anthropic-xml:read_file open,close,struct"])
    const param =
      '<function_calls><invoke name="read_file"><param name="path">a</param></invoke></function_calls>'
    expect(scan(param, { tools }).markup.map(brief)).toEqual(["anthropic-xml:read_file open,close,struct"])
    const bare = 'court\n<invoke name="read_file">\n<parameter name="path">a</parameter>\n</invoke>'
    const result = scan(bare, { tools })
    expect(result.markup.map(brief)).toEqual(["anthropic-xml:read_file struct"])
    expect(result.text).toBe("court\n")
    // A bare <invoke> naming a tool that is not offered stays text.
    const unknown = bare.replace("read_file", "wipe_disk")
    expect(scan(unknown, { tools })).toMatchObject({ text: unknown, markup: [] })
  })

  test("Hunyuan's suffixed section tag", () => {
    const text =
      "<tool_calls:opensource><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call></tool_calls:opensource>"
    expect(scan(text, { tools }).markup.map(brief)).toEqual(["hunyuan:get_weather open,close,struct"])
  })

  test("MiniMax M3's self-overlapping namespace token is held longest-first across a split", () => {
    const text =
      'Tuner.]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="read_file">]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>'
    const cut = text.indexOf("]<]") + 3
    const d = createDetector({ tools })
    const first = d.push(text.slice(0, cut))
    // `]<]` could be the start of `]<]minimax[>[`: all three characters are held, not just `]`.
    expect(first.text).toBe("Tuner.")
    expect(d.held()).toBe(3)
    const second = d.push(text.slice(cut))
    const last = d.end()
    expect(first.text + second.text + last.text).toBe("Tuner.")
    expect([...second.markup, ...last.markup].map(brief)).toEqual(["minimax-m3:read_file open,close,struct"])
  })

  test("GLM: a fragment with no tool name stays text (vllm PR #54971)", () => {
    const text = "<arg_key>path</arg_key></arg_key><arg_value>/tmp/x</arg_value>"
    expect(scan(text, { tools })).toMatchObject({ text, markup: [] })
  })

  test("Cline XML only with the explicit option", () => {
    const text = "<read_file>\n<path>src/main.js</path>\n</read_file>"
    expect(scan(text, { tools }).markup).toEqual([])
    expect(scan(text, { tools, formats: ["cline-xml"] }).markup.map(brief)).toEqual([
      "cline-xml:read_file open,close,struct",
    ])
  })
})

describe("gaps found by @tool-rescue/testing's leakedCall properties (labels from FORMATS.md)", () => {
  const offered = { tools: ["read_file", "bash"] }
  const only = (text: string) => scan(text, offered).markup.map(brief)

  test("1. a missing closer at the end of the stream leaves the envelope open: complete: false", () => {
    for (const [text, format] of [
      ['<tool_call>\n{"name": "read_file", "arguments": {}}\n', "hermes"],
      [
        '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"a":1}',
        "harmony",
      ],
      ['<|action_start|><|plugin|>\n{"name": "read_file", "parameters": {}}', "internlm"],
      ['<tool_calls>\n{"name": "read_file", "arguments": {}}', "minimax-m1"],
      ["<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>", "qwen3-coder"],
    ] as const) {
      const result = scan(text, offered)
      expect(result.markup.map(brief)).toEqual([`${format}:read_file open,struct,cut`])
      expect(result.markup[0]!.end).toBe(text.length)
      expect(isRecoverable(result.markup[0]!)).toBe(true)
    }
    // Prose after the payload ended the call, not the stream.
    expect(only('<tool_call>\n{"name": "read_file", "arguments": {}}\nDone.')).toEqual([
      "hermes:read_file open,struct",
    ])
    // No closer is due: granite-20b-fc, Llama's end-of-message tokens, stripped Harmony (FORMATS.md).
    expect(only('<function_call>{"name": "read_file", "arguments": {}}')).toEqual([
      "hermes:read_file open,struct",
    ])
    expect(only('<|python_tag|>{"name": "read_file", "parameters": {}}')).toEqual([
      "llama3-json:read_file open,struct",
    ])
    expect(only('analysisHm.assistantcommentary to=functions.read_file json{"a":1}')).toEqual([
      "harmony:read_file open,struct",
    ])
  })

  test("2. a lone per-call marker is not the opening envelope (DeepSeek #8, Kimi #11)", () => {
    const ds = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{}\n```<｜tool▁call▁end｜>"
    expect(only(ds)).toEqual(["deepseek-v3:read_file struct"])
    expect(only(`${ds}<｜tool▁calls▁end｜>`)).toEqual(["deepseek-v3:read_file close,struct"])
    const kimi = "<|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
    expect(only(`${kimi}\n<|tool_calls_section_end|>`)).toEqual(["kimi-k2:read_file close,struct"])
  })

  test("3. DSML without its envelope, with or without the orphan closer", () => {
    const call =
      '<｜DSML｜invoke name="read_file">\n<｜DSML｜parameter name="path" string="true">a</｜DSML｜parameter>\n</｜DSML｜invoke>'
    const result = scan(`I'll read it.\n\n${call}\n</｜DSML｜function_calls>\n\nDone.`, offered)
    expect(result.markup.map(brief)).toEqual(["deepseek-dsml:read_file close,struct"])
    expect(result.text).toBe("I'll read it.\n\n\n\nDone.")
    expect(only(call)).toEqual(["deepseek-dsml:read_file struct"])
  })

  test("4. Step3 without its opening is Step3, naming the tool (not DeepSeek's `function`)", () => {
    const call =
      '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="read_file">\n<steptml:parameter name="path">a</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>'
    expect(only(`${call}\n<｜tool_calls_end｜>`)).toEqual(["step3:read_file close,struct"])
    const [m] = scan(call, offered).markup
    expect(m).toMatchObject({ format: "step3", toolName: "read_file", opening: false, closing: false })
    expect(isRecoverable(m!)).toBe(true)
  })

  test("5. MiniMax M3 without its opening: no namespace token stays visible", () => {
    const text =
      'Ok.\n]<]minimax[>[<invoke name="read_file">]<]minimax[>[<path>a]<]minimax[>[</path>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>\nDone.'
    const result = feed(chars(text), offered)
    expect(result.markup.map(brief)).toEqual(["minimax-m3:read_file close,struct"])
    expect(result.text).toBe("Ok.\n\nDone.")
  })

  test("6. MiniMax M2 without its opening: the orphan </minimax:tool_call> is absorbed and tells the format", () => {
    const text =
      'Ok.\n<invoke name="read_file">\n<parameter name="path">a</parameter>\n</invoke>\n</minimax:tool_call>\nDone.'
    const result = scan(text, offered)
    expect(result.markup.map(brief)).toEqual(["minimax-m2:read_file close,struct"])
    expect(result.text).toBe("Ok.\n\nDone.")
  })

  test("7. Functionary v3.2 calls glued as `}>>>NAME`, also when the last is cut off", () => {
    const text = '>>>read_file\n{"path": "a"}>>>bash\n{"command": "ls"}'
    const result = feed(chars(text), offered)
    expect(result.markup.map(brief)).toEqual([
      "functionary:read_file open,struct",
      "functionary:bash open,struct",
    ])
    expect(result.text).toBe("")
    expect(reassemble(text, result)).toBe(text)
    expect(only('>>>bash\n{"a": 1}>>>read_file\n{"path": "(')).toEqual([
      "functionary:bash open,struct",
      "functionary:read_file open,struct,cut",
    ])
    // `all` is text by definition, and an unknown name stays text.
    expect(scan(">>>bash\n{}>>>all\nHello", offered).text).toBe(">>>all\nHello")
    expect(scan(">>>bash\n{}>>>wipe\n{}", offered).text).toBe(">>>wipe\n{}")
  })

  test("8. GLM: a zero-argument call cut off right after its name, for an offered tool", () => {
    const result = feed(chars("Ok.\n<tool_call>read_file"), offered)
    expect(result.markup.map(brief)).toEqual(["glm:read_file open,cut"])
    expect(result.text).toBe("Ok.\n")
    expect(isRecoverable(result.markup[0]!)).toBe(true)
    expect(
      only("<tool_call>read_file<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>\n<tool_call>bash"),
    ).toEqual(["glm:read_file open,close,struct", "glm:bash open,cut"])
    // Not at the end of the stream, or not an offered tool: text.
    expect(scan("<tool_call>read_file is a tag", offered).markup).toEqual([])
    expect(scan("<tool_call>wipe", offered).markup).toEqual([])
  })

  test("9. pythonic: a keyword argument is call structure, so a list cut off mid-value is recoverable", () => {
    const result = scan('[read_file(), read_file(path="a", content="gt', offered)
    expect(result.markup.map(brief)).toEqual([
      "pythonic:read_file struct,cut",
      "pythonic:read_file struct,cut",
    ])
    expect(result.markup.every((m) => isRecoverable(m))).toBe(true)
    // A positional argument cut off is no structure yet.
    expect(only('[read_file("a')).toEqual(["pythonic:read_file cut"])
  })

  test("10. text is released in stream order, and held() is always the undecided end of the input", () => {
    // A lone high surrogate right before markup is released at once (no pair can follow it).
    const d = createDetector(offered)
    const r = d.push('\uD800<tool_call>{"name": "read_file", "arguments": {}}</tool_call>')
    expect(r.text).toBe("\uD800")
    expect(d.held()).toBe(0)
    // Markup in reasoning waits for its answer; the text after it flows, and offsets place it.
    const call = '<tool_call>{"name": "read_file", "arguments": {}}</tool_call>'
    const text = `<think>Plan ${call} then more.</think>Answer.`
    const e = createDetector(offered)
    const first = e.push(text.slice(0, text.indexOf(" then")))
    const second = e.push(text.slice(text.indexOf(" then")))
    expect(first.text).toBe("<think>Plan ")
    expect(second.text).toBe(" then more.</think>Answer.")
    expect(second.markup.map(brief)).toEqual(["hermes:read_file open,close,struct,think,answered"])
    expect(reassemble(text, { text: first.text + second.text, markup: second.markup })).toBe(text)
  })
})

describe("visible text and hold-back", () => {
  test("a lone high surrogate at a chunk's end is held until its pair arrives", () => {
    const d = createDetector({ tools })
    expect(d.push("ok \uD83D").text).toBe("ok ")
    expect(d.held()).toBe(1)
    expect(d.push("\uDE00!").text).toBe("\uD83D\uDE00!")
    expect(d.held()).toBe(0)
    expect(d.push("\uD83D").text).toBe("")
    expect(d.end().text).toBe("\uD83D")
  })

  test("a possible marker prefix is held, then released when it cannot complete", () => {
    const d = createDetector({ tools })
    expect(d.push("a <tool_ca").text).toBe("a ")
    expect(d.held()).toBe(8)
    expect(d.push("rt is here").text).toBe("<tool_cart is here")
    expect(d.held()).toBe(0)
  })

  test("an undecided candidate is capped at maxHoldChars", () => {
    const d = createDetector({ tools, maxHoldChars: 100 })
    const name = "x".repeat(300)
    let shown = d.push("<function=").text
    for (const c of name) {
      shown += d.push(c).text
      expect(d.held()).toBeLessThanOrEqual(100)
    }
    shown += d.end().text
    expect(shown).toBe(`<function=${name}`)
  })

  test("end() flushes what is held and closes open markup", () => {
    const d = createDetector({ tools })
    d.push('Hi <tool_call>{"name": "read_file", "argu')
    const last = d.end()
    expect(last.markup.map(brief)).toEqual(["hermes:read_file open,cut"])
    expect(d.end()).toMatchObject({ text: "", markup: [], withheld: [] })
  })

  test("offsets are UTF-16 offsets in the whole stream", () => {
    const text = "😀 中文\n<tool_call>\n<function=Bash>\n</function>\n</tool_call>"
    const result = feed(chars(text), { tools })
    expect(result.markup[0]).toMatchObject({ start: text.indexOf("<tool_call>"), end: text.length })
  })
})

describe("API misuse throws; model output never does", () => {
  test.each([
    [{ tools: "read_file" }],
    [{ tools: [1] }],
    [{ formats: ["nope"] }],
    [{ formats: "hermes" }],
    [{ maxHoldChars: 0 }],
    [{ maxHoldChars: 1.5 }],
    [null],
  ])("createDetector(%j) throws a TypeError", (options) => {
    expect(() => createDetector(options as never)).toThrow(TypeError)
  })

  test("push() of a non-string, and push() after end(), throw", () => {
    const d = createDetector()
    expect(() => d.push(42 as never)).toThrow(TypeError)
    d.end()
    expect(() => d.push("x")).toThrow(/reset/)
    d.reset()
    expect(d.push("x").text).toBe("x")
    expect(() => scan(1 as never)).toThrow(TypeError)
  })

  test("the methods are shared by every detector: called off their detector, they throw a TypeError that says so", () => {
    const a = createDetector({ tools })
    const b = createDetector({ tools })
    expect(a.push).toBe(b.push)
    const { push, end, reset, held } = a
    for (const unbound of [() => push("x"), () => end(), () => reset(), () => held()])
      expect(unbound).toThrow(/is a method: call it on its detector/)
    // Each detector keeps its own state.
    expect(a.push("<tool_ca").text).toBe("")
    expect(b.push("plain").text).toBe("plain")
    expect(a.held()).toBe(8)
    expect(b.held()).toBe(0)
    a.reset()
    expect(a.held()).toBe(0)
  })

  test("a megabyte chunk and thousands of repeated partial markers", () => {
    const big = "lorem ipsum <div> `x` [1] ".repeat(40_000)
    expect(scan(big, { tools }).text).toBe(big)
    const partials = "<tool_ca".repeat(5_000) + "]<]minimax[>".repeat(5_000) + "<function=".repeat(5_000)
    const result = feed([partials.slice(0, 7), partials.slice(7)], { tools })
    expect(result.text).toBe(partials)
    expect(feed(chars(partials.slice(0, 20_000)), { tools }).text).toBe(partials.slice(0, 20_000))
    // Switching scanners (prose, reasoning, call bodies) inside one big chunk never repeats a search.
    const switching =
      "<think>a</think>`x`".repeat(30_000) + '<tool_call>{"name": "read_file"}</tool_call> '.repeat(10_000)
    const switched = scan(switching, { tools })
    expect(switched.markup).toHaveLength(10_000)
    expect(reassemble(switching, switched)).toBe(switching)
  })
})

describe("positions (withheld, decided)", () => {
  test("each push says what it withheld and how far the input is decided", () => {
    const d = createDetector({ tools })
    const a = d.push("Ok. <tool_ca")
    expect(a).toMatchObject({ text: "Ok. ", withheld: [], decided: 4 })
    const b = d.push('ll>{"name": "bash", "arguments": {}}</tool_call> Done <')
    expect(b).toMatchObject({ text: " Done ", withheld: [4, 60], decided: 66 })
    expect(b.markup).toMatchObject([{ start: 4, end: 60 }])
    const c = d.end()
    expect(c).toMatchObject({ text: "<", withheld: [], decided: 67 })
  })

  test("an open call is withheld as it arrives, before it is reported", () => {
    const d = createDetector({ tools })
    const a = d.push("<function=Bash>\n<parameter=cmd>\nls")
    expect(a.markup).toEqual([])
    expect(a.withheld).toEqual([0, 34])
    const b = d.push(" -la\n</parameter>")
    expect(b).toMatchObject({ text: "", withheld: [34, 51], decided: 51 })
    expect(d.end().markup.map(brief)).toEqual(["qwen3-coder:Bash struct,cut"])
  })

  test("a held high surrogate is not decided until its pair arrives", () => {
    const d = createDetector({ tools })
    expect(d.push("ok \uD83D")).toMatchObject({ text: "ok ", decided: 3 })
    expect(d.push("\uDE00!")).toMatchObject({ text: "\uD83D\uDE00!", decided: 6 })
  })
})

describe("a pythonic name cut off by a push", () => {
  // FC_SEED=1622326473: `[` held at a push's end, then `read_file_` — a name no offered tool starts
  // with. The fast path held the run going on (11 characters) where the machine, given the same
  // text in one push, holds none.
  test.each([
    ["x[", "read_file_"],
    ["</y:invoke>[", "read_file_"],
    ["x [read", "_file_"],
  ])("%j then %j holds what one push of both holds", (first, second) => {
    const split = createDetector({ tools })
    split.push(first)
    split.push(second)
    const whole = createDetector({ tools })
    whole.push(first + second)
    expect(split.held()).toBe(whole.held())
    expect(split.held()).toBe(0)
  })

  test("a name an offered tool starts with is still held across pushes", () => {
    const d = createDetector({ tools })
    d.push("x [")
    d.push("read_fi")
    expect(d.held()).toBe(8)
    expect(d.push("le(path='a.ts')]").markup).toHaveLength(1)
  })
})
