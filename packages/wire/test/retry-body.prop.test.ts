/**
 * Properties of the retry bodies: the retry is the original request plus the instruction,
 * placed where chat templates accept it; nothing of the caller's is mutated or lost.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { chatRetryBody } from "../src/chat-request.ts"
import { responsesRetryBody } from "../src/responses-request.ts"

const text = fc.string({ maxLength: 20 })
const content = fc.oneof(text, fc.array(fc.record({ type: fc.constant("text"), text }), { maxLength: 3 }))
const message = fc.record({
  role: fc.constantFrom("system", "developer", "user", "assistant", "tool"),
  content,
})
const messages = fc.array(message, { maxLength: 6 })
const instruction = fc.string({ minLength: 1, maxLength: 40 })

describe("chatRetryBody", () => {
  test.prop([messages, instruction])(
    '"system": one leading system/developer message carries the instruction; the rest is unchanged',
    (msgs, instr) => {
      const body = { model: "m", messages: msgs, tools: [] }
      const snapshot = structuredClone(body)
      const retry = chatRetryBody(body, instr, "system") as { messages: typeof msgs }
      expect(body).toEqual(snapshot)
      const [first, ...rest] = retry.messages
      expect(["system", "developer"]).toContain(first?.role)
      const leading = msgs[0]?.role === "system" || msgs[0]?.role === "developer"
      expect(rest).toEqual(leading ? msgs.slice(1) : msgs)
      const merged = JSON.stringify(first?.content)
      expect(merged).toContain(JSON.stringify(instr).slice(1, -1))
      if (leading && typeof msgs[0]!.content === "string" && msgs[0]!.content.length > 0) {
        expect(first?.content).toBe(`${msgs[0]!.content}\n\n${instr}`)
      }
      if (leading && Array.isArray(msgs[0]!.content))
        expect(first?.content).toEqual([...msgs[0]!.content, { type: "text", text: instr }])
    },
  )

  test.prop([messages, instruction])('"user": the instruction is one final user message', (msgs, instr) => {
    const retry = chatRetryBody({ messages: msgs }, instr, "user") as { messages: unknown[] }
    expect(retry.messages).toEqual([...msgs, { role: "user", content: instr }])
  })
})

describe("responsesRetryBody", () => {
  const input = fc.oneof(
    text,
    fc.array(fc.record({ type: fc.constant("message"), role: fc.constant("user"), content: text }), {
      maxLength: 3,
    }),
  )

  test.prop([fc.option(text, { nil: undefined }), input, instruction])(
    '"system": appended to instructions; input unchanged',
    (instructions, inp, instr) => {
      const body = { model: "m", input: inp, ...(instructions === undefined ? {} : { instructions }) }
      const retry = responsesRetryBody(body, instr, "system")
      expect(retry.input).toBe(inp)
      expect(retry.instructions).toBe(instructions ? `${instructions}\n\n${instr}` : instr)
    },
  )

  test.prop([input, instruction])(
    '"user": one user input item appended; instructions unchanged',
    (inp, instr) => {
      const retry = responsesRetryBody({ input: inp, instructions: "keep" }, instr, "user") as {
        input: unknown[]
        instructions: string
      }
      expect(retry.instructions).toBe("keep")
      expect(retry.input.at(-1)).toEqual({ type: "message", role: "user", content: instr })
      expect(retry.input.slice(0, -1)).toEqual(
        typeof inp === "string" ? [{ type: "message", role: "user", content: inp }] : inp,
      )
    },
  )
})
