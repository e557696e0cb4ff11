/**
 * Issue 27: a format's tokens as a family (a vocabulary suffix, other bars and spacings), envelope
 * tokens withheld whatever tool they name, tokens that used to stay on screen, and reasoning that
 * starts only where the reasoning block opens. Each case is also fed one character at a time.
 */
import { describe, expect, test } from "vitest"
import { scan } from "../src/index.ts"
import { brief, chars, feed } from "./helpers.ts"

/** `scan`, checked against a one-character feed. */
function detect(text: string, tools: readonly string[]) {
  const whole = scan(text, { tools })
  const fed = feed(chars(text), { tools })
  expect({ text: fed.text, markup: fed.markup }).toEqual({ text: whole.text, markup: whole.markup })
  return { text: whole.text, markup: whole.markup.map(brief), raw: whole.markup }
}

describe("token families", () => {
  test("Hunyuan HY v4: any vocabulary suffix on every tag, with or without the section", () => {
    for (const sfx of [":opensource", ":v2", ":a+b(c"]) {
      const call = `<tool_call${sfx}>read_file<arg_key${sfx}>path</arg_key${sfx}><arg_value${sfx}>a.ts</arg_value${sfx}></tool_call${sfx}>`
      expect(detect(`Sure.<tool_calls${sfx}>${call}</tool_calls${sfx}> Done.`, ["read_file"])).toMatchObject({
        text: "Sure. Done.",
        markup: ["hunyuan:read_file open,close,struct"],
      })
      // Without its section the call ends at its own close; the answer after it is shown.
      expect(detect(`${call}\nDone.`, ["read_file"])).toMatchObject({ text: "\nDone." })
    }
  })

  test("Hunyuan's suffixed reasoning token opens reasoning anywhere", () => {
    const S = ":opensource"
    const text = `<think${S}>Call it.</think${S}>\n<tool_calls${S}><tool_call${S}>bash</tool_call${S}></tool_calls${S}>`
    const { raw } = detect(text, ["bash"])
    expect(raw.map((m) => [m.toolName, m.inReasoning])).toEqual([["bash", false]])
    const inside = `Hm. <think${S}><tool_call${S}>bash</tool_call${S}></think${S}>`
    expect(detect(inside, ["bash"]).raw.map((m) => m.inReasoning)).toEqual([true])
  })

  test("the plain tags in prose are text; alone, a suffixed one is a token, withheld in its plain tag's role", () => {
    expect(detect("Wrap it in <tool_calls> <tool_call> tool </tool_call> tags.", ["tool"]).markup).toEqual([])
    // HY v4's suffixed tags are special tokens of its vocabulary: never the user's text.
    for (const [tag, role] of [
      ["<tool_calls:opensource>", "open,cut"],
      ["<tool_call:v2>", "cut"],
      ["</tool_call:opensource>", "close"],
      ["</tool_calls:x1>", "close"],
      ["<arg_value:opensource>", "cut"],
    ]) {
      expect(detect(`See ${tag} in the vocabulary.`, ["bash"])).toMatchObject({
        text: "See  in the vocabulary.",
        markup: [`hunyuan:?(not offered) ${role}`],
      })
    }
    // An offered tool in the call tag's name slot is reported (and stays on screen).
    expect(detect("Then <tool_call:opensource> bash, later.", ["bash"]).markup).toEqual(["hunyuan:bash cut"])
  })

  test("HY v4 tags around a call behave as the plain ones: repeats and orphan closers join it", () => {
    const S = ":opensource"
    const call = `<tool_call${S}>bash<arg_key${S}>c</arg_key${S}><arg_value${S}>ls</arg_value${S}></tool_call${S}>`
    for (const tail of [`</tool_call${S}>`, `</tool_calls${S}>`])
      expect(detect(`${call}\n${tail}\nDone.`, ["bash"])).toMatchObject({
        text: "\nDone.",
        markup: ["hunyuan:bash open,close,struct"],
      })
    // Cut off right after the name: withheld for an offered tool, as GLM's plain `<tool_call>NAME` is.
    expect(detect(`Ok <tool_call${S}>bash`, ["bash"])).toMatchObject({
      text: "Ok ",
      markup: ["hunyuan:bash open,cut"],
    })
    // The call's tag dropped: its arguments to its close are withheld (the name already went out).
    const args = detect(`bash<arg_key${S}>c</arg_key${S}><arg_value${S}>ls</arg_value${S}></tool_call${S}>`, [
      "bash",
    ])
    expect(args.text).toBe("bash")
    expect(args.raw).toMatchObject([{ format: "hunyuan", toolName: undefined, complete: true }])
  })

  test("code is content: a suffixed call in a fence or inline code is an example", () => {
    const call =
      "<tool_calls:opensource><tool_call:opensource>bash</tool_call:opensource></tool_calls:opensource>"
    expect(detect(`\`\`\`\n${call}\n\`\`\`\n`, ["bash"]).markup).toEqual([])
    expect(detect(`Write \`${call}\` here.`, ["bash"]).markup).toEqual([])
  })
})

describe("an envelope token names a tool that is not offered in this step", () => {
  const qwen = "Sure.\n<function=Read>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"

  test("withheld and reported as it is with no tools offered", () => {
    for (const tools of [["Bash"], []]) {
      const { text, raw } = detect(qwen, tools)
      expect(text).toBe("Sure.\n")
      expect(raw).toMatchObject([{ format: "qwen3-coder", toolName: "Read", offered: false, closing: true }])
    }
  })

  test("several bare calls in one envelope, Anthropic-style and namespaced", () => {
    const text =
      '<invoke name="Read">\n<parameter name="p">a</parameter>\n</invoke>\n<invoke name="Bash">\n<parameter name="c">ls</parameter>\n</x:invoke>\n</function_calls>'
    const { text: shown, markup } = detect(text, ["Bash"])
    expect(shown.trim()).toBe("")
    expect(markup).toEqual(["anthropic-xml:Read(not offered) struct", "anthropic-xml:Bash close,struct"])
  })

  test("a bare header with no envelope token naming a tool not offered stays prose", () => {
    const bare = "Use <function=Read>\n<parameter=path>\na.ts\n</parameter>\n</function> like this."
    expect(detect(bare, ["Bash"])).toMatchObject({ text: bare, markup: [] })
    expect(detect("Qwen emits <function=Read> headers.", ["Bash"]).markup).toEqual([])
  })

  test("in a fenced block it is an example", () => {
    expect(detect(`\`\`\`xml\n${qwen}\n\`\`\`\n`, ["Bash"]).markup).toEqual([])
  })
})

describe("tokens left on screen", () => {
  test("an orphan envelope closer after a bare JSON call joins it", () => {
    const call = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
    for (const closer of ["</tool_call>", "</tool_calls>", "</function_call>"]) {
      expect(detect(`x${call}\n${closer}\nok`, ["get_weather"])).toMatchObject({
        text: "x\nok",
        markup: ["llama3-json:get_weather close,struct"],
      })
    }
  })

  test("DSML with another bar, spacing or envelope name", () => {
    for (const d of ["｜DSML｜ ", "‖DSML‖", "||DSML|| ", " | DSML | "])
      for (const tag of ["calls", "tool_use", "tool_calls"]) {
        const text = `<${d}${tag}><${d}invoke name="exec"><${d}parameter name="c" string="true">ls</${d}parameter></${d}invoke></${d}${tag}>`
        expect(detect(text, ["exec"]).markup).toEqual(["deepseek-dsml:exec open,close,struct"])
      }
  })

  test("a DSML envelope around a call's JSON, fenced or not, is withheld whole with its closer", () => {
    const object = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
    for (const tag of ["toolcall", "tool_calls", "calls"])
      for (const body of [
        `\`\`\`json\n${object}\n\`\`\``,
        object,
        `get_weather\n\`\`\`json\n{"city": "Paris"}\n\`\`\``,
      ]) {
        const text = `Sure.\n<｜DSML｜${tag}>\n${body}\n</｜DSML｜${tag}>\nDone.`
        expect(detect(text, ["get_weather"])).toMatchObject({
          text: "Sure.\n\nDone.",
          markup: ["deepseek-dsml:get_weather open,close,struct"],
        })
      }
    // As an example in a fence, it is shown.
    const example = `\`\`\`\`\n<｜DSML｜toolcall>\n\`\`\`json\n${object}\n\`\`\`\n</｜DSML｜toolcall>\n\`\`\`\`\n`
    expect(detect(example, ["get_weather"])).toMatchObject({ text: example, markup: [] })
  })

  test("DSML and Kimi K3 and MiniMax M3 tokens alone are withheld", () => {
    for (const [token, format] of [
      ["</｜DSML｜tool_calls>", "deepseek-dsml"],
      ["<‖DSML‖toolcalls >", "deepseek-dsml"],
      ["<|close|> call <|sep|>", "kimi-k3"],
      ["<|open|>tools<|sep|>", "kimi-k3"],
      ["]<]minimax[>[</tool_call>", "minimax-m3"],
    ])
      expect(detect(`Done ${token} here.`, ["bash"]).raw).toMatchObject([{ format, toolName: undefined }])
  })

  test("Kimi K3 with spaces in its markers, or the section's boundary lost", () => {
    const lost =
      '<|open|>toolscall tool="StrReplace" index="1"<|sep|><|open|>argument key="old" type="string"<|sep|>a<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>'
    expect(detect(`${lost}\nok`, ["StrReplace"])).toMatchObject({
      text: "\nok",
      markup: ["kimi-k3:StrReplace close,struct"],
    })
  })
})

describe("reasoning starts only where the reasoning block opens", () => {
  const call = '<tool_call>\n{"name": "bash", "arguments": {"c": "ls"}}\n</tool_call>'

  test("a <think> named in prose does not make the call after it reasoning", () => {
    for (const tag of ["<think>", "<thinking>"]) {
      const { text, raw } = detect(`Use ${tag} for reasoning.\n${call}`, ["bash"])
      expect(text).toBe(`Use ${tag} for reasoning.\n`)
      expect(raw.map((m) => m.inReasoning)).toEqual([false])
    }
  })

  test("at the start of the answer it opens the block", () => {
    const { raw } = detect(`\n<think>Maybe:\n${call}\n</think>\nDone.`, ["bash"])
    expect(raw.map((m) => [m.inReasoning, m.answerFollows])).toEqual([[true, true]])
  })
})
