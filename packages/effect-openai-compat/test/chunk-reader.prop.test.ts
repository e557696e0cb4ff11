import type { Response } from "effect/ai"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { createChunkReader } from "../src/chunk-reader.ts"

/** A delta of text or reasoning, in the field a server uses for it. */
const textDelta = fc.oneof(
  fc.record({ content: fc.string({ minLength: 1 }) }),
  fc.record({ reasoning_content: fc.string({ minLength: 1 }) }),
  fc.record({ reasoning: fc.string({ minLength: 1 }) }),
)

/** Tool calls with JSON arguments, each split into the deltas a server may send. */
const calls = fc.array(
  fc
    .record({ name: fc.constantFrom("a", "b_c"), params: fc.dictionary(fc.string(), fc.jsonValue()) })
    .chain((call) => {
      const text = JSON.stringify(call.params)
      return fc
        .uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 4 })
        .map((cuts) => {
          const at = [0, ...cuts.filter((cut) => cut < text.length).sort((x, y) => x - y), text.length]
          return { ...call, text, pieces: at.slice(1).map((end, i) => text.slice(at[i], end)) }
        })
    }),
  { maxLength: 3 },
)

const chunk = (delta: object, finish: string | null = null) => ({
  id: "c",
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finish }],
})

describe("createChunkReader", () => {
  it("keeps every delta, in well-formed blocks, and every call's arguments, ending in one finish", () => {
    fc.assert(
      fc.property(fc.array(textDelta, { maxLength: 12 }), calls, (texts, toolCalls) => {
        const reader = createChunkReader()
        const parts: Response.StreamPartEncoded[] = []
        for (const delta of texts) parts.push(...reader.read(chunk(delta)))
        toolCalls.forEach((call, index) => {
          call.pieces.forEach((piece, i) => {
            const head = i === 0 ? { id: `call_${index}x`, type: "function" } : {}
            const fn = i === 0 ? { name: call.name, arguments: piece } : { arguments: piece }
            parts.push(...reader.read(chunk({ tool_calls: [{ index, ...head, function: fn }] })))
          })
        })
        parts.push(...reader.read(chunk({}, toolCalls.length > 0 ? "tool_calls" : "stop")))
        parts.push(
          ...reader.read({ id: "c", choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } }),
        )
        parts.push(...reader.end())

        const join = (type: "text-delta" | "reasoning-delta") =>
          parts.flatMap((part) => (part.type === type ? [part.delta] : [])).join("")
        expect(join("text-delta")).toBe(texts.map((d) => ("content" in d ? d.content : "")).join(""))
        expect(join("reasoning-delta")).toBe(
          texts
            .map((d) =>
              "reasoning_content" in d ? d.reasoning_content : "reasoning" in d ? d.reasoning : "",
            )
            .join(""),
        )
        // Each delta sits in an open block of its kind and id; every block that opens closes.
        const open = new Map<string, string>()
        for (const part of parts) {
          if (part.type === "text-start" || part.type === "reasoning-start") open.set(part.id, part.type)
          if (part.type === "text-delta") expect(open.get(part.id)).toBe("text-start")
          if (part.type === "reasoning-delta") expect(open.get(part.id)).toBe("reasoning-start")
          if (part.type === "text-end" || part.type === "reasoning-end")
            expect(open.delete(part.id)).toBe(true)
        }
        expect(open.size).toBe(0)
        expect(
          parts.flatMap((part) => (part.type === "tool-call" ? [[part.id, part.name, part.params]] : [])),
          // What the server sent, parsed (`-0` is `0` once it went through JSON).
        ).toEqual(toolCalls.map((call, index) => [`call_${index}x`, call.name, JSON.parse(call.text)]))
        expect(parts.filter((part) => part.type === "finish")).toHaveLength(1)
        const finish = parts.at(-1)
        expect(finish?.type).toBe("finish")
        expect(finish?.type === "finish" && finish.reason).toBe(toolCalls.length > 0 ? "tool-calls" : "stop")
        expect(finish?.type === "finish" && finish.usage.outputTokens.total).toBe(4)
      }),
    )
  })
})
