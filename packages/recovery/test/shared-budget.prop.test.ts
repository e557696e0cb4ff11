import { fc, test } from "@fast-check/vitest"
import type { NormalizedPart } from "@tool-rescue/recovery"
import { expect } from "vitest"
import { call, finish, run, type Step, text } from "./support/script.ts"

// Every outcome that spends a retry, and the answers that end a turn, mixed in any order.
const attempts: Record<string, readonly Step<string>[]> = {
  leak: [
    text("<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>"),
    finish(),
  ],
  truncated: [
    text('<tool_call>\n{"name": "read_file", "arguments": {"path": "aaaa'),
    { type: "finish", raw: "length", truncated: true } satisfies NormalizedPart<string>,
  ],
  unknownName: [
    text("<tool_call>\n<function=readFile>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>"),
    finish(),
  ],
  announced: [text("Let me use read_file on a.ts."), finish()],
  structured: [call("read_file", '{"path":"a"}'), finish()],
  answer: [text("Done."), finish()],
}

test.prop([
  fc.array(fc.constantFrom(...Object.keys(attempts)), { minLength: 1, maxLength: 6 }),
  fc.nat({ max: 3 }),
  fc.nat({ max: 2 }),
])(
  "the budget is shared by every outcome: never more than maxRecoveries retries",
  async (script, max, before) => {
    const result = await run(
      script.map((name) => attempts[name]!),
      {
        tools: ["read_file", "bash"],
        recoveriesBefore: before,
        options: { maxRecoveries: max, unknownToolMarkup: "retry", announcedCalls: "retry" },
      },
    )
    const retries = result.attempts.length - 1
    expect(retries).toBeLessThanOrEqual(Math.max(0, max - before))
    expect(result.events.filter((e) => e.type === "recovery-started")).toHaveLength(retries)
    // Nothing the model wrote as text ever comes out as a call.
    const calls = result.parts.filter((p) => p.type === "tool-call")
    for (const c of calls) expect(c.type === "tool-call" && c.params).toBe('{"path":"a"}')
  },
)
