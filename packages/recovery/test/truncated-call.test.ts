import { isToolCallRecoveryError, type NormalizedPart } from "@tool-rescue/recovery"
import { describe, expect, test } from "vitest"
import { call, finish, run, text } from "./support/script.ts"

const cutOff = text(
  '<tool_call>\n{"name": "write_file", "arguments": {"path": "big.txt", "content": "aaaaaaaa',
)
const closed = text('<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt"}}\n</tool_call>')
const atLimit: NormalizedPart<string> = { type: "finish", raw: "length", truncated: true }
const tools = ["write_file", "read_file"]

describe("a call cut off by the output limit", () => {
  test("is retried once with an instruction that says it was cut off and asks for concise arguments", async () => {
    const result = await run(
      [
        [cutOff, atLimit],
        [call("write_file", '{"path":"big.txt"}'), finish()],
      ],
      { tools },
    )
    expect(result.threw).toBe(false)
    const instruction = result.attempts[1]?.instruction ?? ""
    expect(instruction).toContain("cut off by the output limit")
    expect(instruction).toContain("write_file")
    expect(instruction).toContain("concise arguments")
    expect(instruction).not.toContain("instead of a structured tool call")
    expect(result.events.map((e) => e.type)).toContain("recovery-succeeded")
  })

  test("cut off twice ends the turn with truncated-call, not repeated-markup", async () => {
    const result = await run([[cutOff, atLimit]], { tools })
    expect(result.threw).toBe(true)
    expect(isToolCallRecoveryError(result.error) && result.error.code).toBe("truncated-call")
    expect(String((result.error as Error).message)).toContain("output limit")
    expect(result.attempts).toHaveLength(2)
  })

  test("complete markup at the output limit is a plain leak (repeated-markup)", async () => {
    const result = await run([[closed, atLimit]], { tools })
    expect(isToolCallRecoveryError(result.error) && result.error.code).toBe("repeated-markup")
    expect(result.attempts[1]?.instruction).toContain("instead of a structured tool call")
  })

  test("open markup without the output limit is a plain leak (repeated-markup)", async () => {
    const result = await run([[cutOff, finish()]], { tools })
    expect(isToolCallRecoveryError(result.error) && result.error.code).toBe("repeated-markup")
  })

  test("a user instruction function is told the call was cut off", async () => {
    const seen: Array<boolean | undefined> = []
    await run([[cutOff, atLimit], [finish()]], {
      tools,
      options: {
        instruction: (context) => {
          seen.push(context.truncated)
          return "shorter please"
        },
      },
    })
    expect(seen).toEqual([true])
  })

  test("never executed: no tool-call part comes out of a cut-off attempt", async () => {
    const result = await run([[cutOff, atLimit]], { tools })
    expect(result.parts.some((p) => p.type === "tool-call")).toBe(false)
    expect(result.parts.map((p) => (p.type === "text" ? p.text : "")).join("")).not.toContain("write_file")
  })
})
