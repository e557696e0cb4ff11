import type { FailedResponse } from "@tool-rescue/recovery"
import { describe, expect, test } from "vitest"
import { call, finish, run, text } from "./support/script.ts"

const announce = text("I'll use the Glob tool to list all markdown files in the current directory.")
const tools = ["Glob", "Read"]

describe('announcedCalls: "retry"', () => {
  test("an answer that ends by announcing an offered tool, with no call, is retried once", async () => {
    const result = await run(
      [
        [announce, finish()],
        [call("Glob", '{"pattern":"*.md"}'), finish()],
      ],
      {
        tools,
        options: { announcedCalls: "retry" },
      },
    )
    expect(result.threw).toBe(false)
    expect(result.attempts).toHaveLength(2)
    expect(result.attempts[1]?.instruction).toContain('said you would call "Glob", but no call was made')
    expect(result.attempts[1]?.instruction).toContain("or answer without it")
    expect(result.events.find((e) => e.type === "recovery-started")).toMatchObject({
      announced: "Glob",
      markup: [],
    })
    expect(result.parts.some((p) => p.type === "tool-call")).toBe(true)
  })

  test("with persistFailed: the announcement is retried and not handed to it (it holds no markup)", async () => {
    const failed: FailedResponse[] = []
    const result = await run(
      [
        [announce, finish()],
        [call("Glob", '{"pattern":"*.md"}'), finish()],
      ],
      {
        tools,
        options: { announcedCalls: "retry", persistFailed: (response) => void failed.push(response) },
      },
    )
    expect(result.threw).toBe(false)
    expect(result.attempts).toHaveLength(2)
    expect(failed).toEqual([])
  })

  test("a second announcement stands as the answer: no error, no third attempt", async () => {
    const result = await run([[announce, finish()]], { tools, options: { announcedCalls: "retry" } })
    expect(result.threw).toBe(false)
    expect(result.attempts).toHaveLength(2)
  })

  test("by default an announcement is the answer", async () => {
    const result = await run([[announce, finish()]], { tools })
    expect(result.attempts).toHaveLength(1)
  })

  test("never on an answer that only mentions a tool, holds a call, or names a tool not offered", async () => {
    const options = { announcedCalls: "retry" } as const
    expect(
      (await run([[text("The Glob tool lists files."), finish()]], { tools, options })).attempts,
    ).toHaveLength(1)
    expect((await run([[announce, call("Glob", "{}"), finish()]], { tools, options })).attempts).toHaveLength(
      1,
    )
    expect((await run([[announce, finish()]], { tools: ["Read"], options })).attempts).toHaveLength(1)
    expect(
      (await run([[text("```\nI'll use the Glob tool.\n"), finish()]], { tools, options })).attempts,
    ).toHaveLength(1)
  })

  test("shares the one budget: after a markup recovery, an announcement is not retried", async () => {
    const leak = text("<function=Glob>\n<parameter=pattern>\n*.md\n</parameter>\n</function>\n</tool_call>")
    const result = await run(
      [
        [leak, finish()],
        [announce, finish()],
      ],
      { tools, options: { announcedCalls: "retry" } },
    )
    expect(result.threw).toBe(false)
    expect(result.attempts).toHaveLength(2)
  })
})
