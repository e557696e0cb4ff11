import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { visibleWidth } from "../src/style.ts"
import { wrapText } from "../src/wrap-text.ts"

const word = fc.string({
  unit: fc.constantFrom("a", "b", "é", "字", "\u001b[2m", "\u001b[22m"),
  minLength: 1,
  maxLength: 30,
})

describe("wrapText", () => {
  test.prop([fc.array(word, { maxLength: 40 }), fc.integer({ min: 20, max: 120 }), fc.nat(12)])(
    "no line passes the width unless it is one word, and unwrapping gives the text back",
    (words, width, indentSize) => {
      const indent = " ".repeat(indentSize)
      const text = words.join(" ")
      const lines = wrapText(text, width, indent).split("\n")
      const room = Math.max(20, width - indentSize)
      for (const line of lines.map((l, i) => (i === 0 ? l : l.slice(indentSize)))) {
        if (line.includes(" ")) expect(visibleWidth(line)).toBeLessThanOrEqual(room)
      }
      expect(lines.slice(1).every((line) => line.startsWith(indent))).toBe(true)
      expect(lines.map((l, i) => (i === 0 ? l : l.slice(indentSize))).join(" ")).toBe(text)
    },
  )
})
