import { describe, expect, test } from "vitest"
import { isToolCallRecoveryError, ToolCallRecoveryError } from "../src/index.ts"
import { finish, run, text } from "./support/script.ts"

const leak = text('<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>')

describe("the error's message counts the turn's attempts", () => {
  test("one attempt is singular, two are plural", () => {
    const aborted = new ToolCallRecoveryError({ code: "aborted", rounds: 1, markup: [] })
    expect(aborted.message).toContain("after 1 attempt.")
    const repeated = new ToolCallRecoveryError({ code: "repeated-markup", rounds: 2, markup: [] })
    expect(repeated.message).toContain("2 of 2 attempts;")
  })

  test("recoveriesBefore counts the earlier calls' attempts", () => {
    const error = new ToolCallRecoveryError({
      code: "repeated-markup",
      rounds: 1,
      recoveriesBefore: 1,
      markup: [],
    })
    expect(error.message).toContain("2 of 2 attempts;")
    expect(error.rounds).toBe(1)
  })

  test("a leak after a tool result, with the turn's budget spent, is the turn's second attempt", async () => {
    const result = await run([[leak, finish()]], { recoveriesBefore: 1 })
    expect(result.threw).toBe(true)
    expect(isToolCallRecoveryError(result.error) && result.error.code).toBe("repeated-markup")
    const message = (result.error as Error).message
    expect(message).toContain("2 of 2 attempts;")
    expect(message).not.toContain("1 of 1")
  })

  test("a leak on a fresh turn's retry: 2 of 2 attempts", async () => {
    const result = await run([
      [leak, finish()],
      [leak, finish()],
    ])
    expect(isToolCallRecoveryError(result.error) && result.error.code).toBe("repeated-markup")
    expect((result.error as Error).message).toContain("2 of 2 attempts;")
  })
})
