import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { describe, expect, test } from "vitest"
import { createResponseJudge } from "../src/adapter.ts"
import { call, finish, run, text, visible } from "./support/script.ts"

const typo = text(
  "<tool_call>\n<function=readFile>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>",
)
const tools = ["read_file", "bash"]

describe('unknownToolMarkup: "retry"', () => {
  test("a leak naming a tool that is not offered is retried once, naming the near miss and the offered tools", async () => {
    const result = await run(
      [
        [typo, finish()],
        [call("read_file", '{"path":"a.ts"}'), finish()],
      ],
      {
        tools,
        options: { unknownToolMarkup: "retry" },
      },
    )
    expect(result.threw).toBe(false)
    expect(result.attempts).toHaveLength(2)
    const instruction = result.attempts[1]?.instruction ?? ""
    expect(instruction).toContain('no tool named "readFile" exists')
    expect(instruction).toContain('Did you mean "read_file"?')
    expect(instruction).toContain("The available tools are: read_file, bash.")
    const detected = result.events.find((e) => e.type === "markup-detected")
    expect(detected).toMatchObject({ recoverable: true, reason: "unknown-tool" })
  })

  test("the same leak twice ends the turn with repeated-markup (one budget)", async () => {
    const result = await run([[typo, finish()]], { tools, options: { unknownToolMarkup: "retry" } })
    expect(isToolCallRecoveryError(result.error) && result.error.code).toBe("repeated-markup")
    expect(result.attempts).toHaveLength(2)
  })

  test("by default it is withheld and the turn ends as answered: no retry", async () => {
    const result = await run([[text("Reading. "), typo, finish()]], { tools })
    expect(result.threw).toBe(false)
    expect(result.attempts).toHaveLength(1)
    expect(result.events.find((e) => e.type === "markup-detected")).toMatchObject({
      recoverable: false,
      reason: "not-offered",
    })
  })

  test("prose that names an unknown tool without a call's structure is never retried", async () => {
    const result = await run([[text("Qwen models emit <function=readFile> headers."), finish()]], {
      tools,
      options: { unknownToolMarkup: "retry" },
    })
    expect(result.attempts).toHaveLength(1)
  })

  // A tool removed since the last turn, or outside the step's `activeTools`: the envelope token
  // says it is a call, whatever it names (DESIGN §3(b)).
  const bareEnvelope = text(
    "Sure.\n<function=Read>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>",
  )

  test("a bare call that names a tool not offered but ends with its envelope token is withheld and reported as not-offered", async () => {
    const result = await run([[bareEnvelope, finish()]], { tools })
    expect(result.attempts).toHaveLength(1)
    expect(result.events.find((e) => e.type === "markup-detected")).toMatchObject({
      recoverable: false,
      reason: "not-offered",
      markup: { toolName: "Read", offered: false, closing: true },
    })
    expect(visible(result.parts)).toBe("Sure.\n")
  })

  test('the same bare call is retried under unknownToolMarkup: "retry"', async () => {
    const result = await run(
      [
        [bareEnvelope, finish()],
        [call("read_file", '{"path":"a.ts"}'), finish()],
      ],
      { tools, options: { unknownToolMarkup: "retry" } },
    )
    expect(result.attempts).toHaveLength(2)
    expect(result.events.find((e) => e.type === "markup-detected")).toMatchObject({ reason: "unknown-tool" })
  })

  test("the CLI's judge reports the same reason", () => {
    const judge = createResponseJudge({ tools, options: { unknownToolMarkup: "retry" } })
    judge.push(typo)
    const judgement = judge.end()
    expect(judgement.retry).toBe(true)
    expect(judgement.markup[0]?.reason).toBe("unknown-tool")
  })

  test("an invalid value is API misuse", async () => {
    const result = await run([[finish()]], { tools, options: { unknownToolMarkup: "always" as never } })
    expect(result.error).toBeInstanceOf(TypeError)
  })
})
