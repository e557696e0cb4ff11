import type { LanguageModelV4Message, LanguageModelV4Prompt } from "@ai-sdk/provider"
import { fc, test } from "@fast-check/vitest"
import { placeInstruction as place } from "@tool-rescue/recovery/adapter"
import { describe, expect } from "vitest"
import { promptOperations } from "../src/prompt-operations.ts"

/** Recovery's one placement rule over the AI SDK's prompt operations. */
const placeInstruction = (prompt: LanguageModelV4Prompt, instruction: string, placement: "system" | "user") =>
  place(prompt, instruction, placement, promptOperations)

const text = fc.string({ maxLength: 20 })
const message: fc.Arbitrary<LanguageModelV4Message> = fc.oneof(
  text.map((content) => ({ role: "system" as const, content })),
  text.map((t) => ({ role: "user" as const, content: [{ type: "text" as const, text: t }] })),
  text.map((t) => ({ role: "assistant" as const, content: [{ type: "text" as const, text: t }] })),
)
const prompt: fc.Arbitrary<LanguageModelV4Prompt> = fc.array(message, { maxLength: 6 })
const instruction = fc.string({ minLength: 1, maxLength: 30 })

describe("placeInstruction", () => {
  test.prop([prompt, instruction])("never mutates the original prompt", (original, added) => {
    const copy = structuredClone(original)
    placeInstruction(original, added, "system")
    placeInstruction(original, added, "user")
    expect(original).toEqual(copy)
  })

  test.prop([prompt, instruction])(
    '"system": merged into the leading system message, or a new first message; nothing else changes',
    (original, added) => {
      const placed = placeInstruction(original, added, "system")
      const first = placed[0]
      expect(first?.role).toBe("system")
      if (original[0]?.role === "system") {
        expect(placed).toHaveLength(original.length)
        expect(placed.slice(1)).toEqual(original.slice(1))
        const before = original[0].content
        expect(first?.role === "system" && first.content).toBe(
          before.length === 0 ? added : `${before}\n\n${added}`,
        )
      } else {
        expect(placed).toEqual([{ role: "system", content: added }, ...original])
      }
      // A system message is added only when the prompt does not start with one.
      const systems = (p: LanguageModelV4Prompt) => p.filter((m) => m.role === "system").length
      expect(systems(placed)).toBe(systems(original) + (original[0]?.role === "system" ? 0 : 1))
    },
  )

  test.prop([prompt, instruction])(
    '"user": one user message appended, everything before unchanged',
    (original, added) => {
      const placed = placeInstruction(original, added, "user")
      expect(placed.slice(0, -1)).toEqual(original)
      expect(placed.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: added }] })
    },
  )
})
