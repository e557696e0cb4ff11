import { expect, test } from "vitest"
import { createDetector, isRecoverable, type Markup, scan } from "../src/index.ts"

// The README's examples, verbatim, so they cannot rot.

test("README: streaming", () => {
  const detector = createDetector({ tools: ["Glob", "Read", "Bash"] })
  const deltas = [
    "I'll use the Glob tool to list all markdown files in the current directory.\n\n<func",
    "tion=Glob>\n<parameter=pattern>\n*.md\n</parameter>\n</function>\n</tool_call>",
  ]
  let visible = ""
  const found: Markup[] = []
  const held: number[] = []
  for (const delta of deltas) {
    const { text, markup } = detector.push(delta)
    visible += text
    found.push(...markup)
    held.push(detector.held())
  }
  const last = detector.end()
  visible += last.text
  found.push(...last.markup)
  expect(held[0]).toBe("<func".length)
  expect(visible).toBe("I'll use the Glob tool to list all markdown files in the current directory.\n\n")
  expect(found).toEqual([
    {
      format: "qwen3-coder",
      toolName: "Glob",
      offered: true,
      opening: false,
      closing: true,
      structured: true,
      complete: true,
      inReasoning: false,
      answerFollows: false,
      start: 77,
      end: 155,
    },
  ])
  expect(isRecoverable(found[0]!)).toBe(true)
})

test("README: one shot", () => {
  const { text, markup } = scan(
    "Let me grep for the implementation of BaseService.\n\n" +
      "<tool_call>\n<function=GrepTool>\n<parameter=pattern>\nclass BaseService\\(\n</parameter>\n" +
      "<parameter=path>\n.\n</parameter>\n</function>\n</tool_call>",
    { tools: ["GrepTool", "ReadFile", "ListDir"] },
  )
  expect(text).toBe("Let me grep for the implementation of BaseService.\n\n")
  expect(markup.map((m) => [m.format, m.toolName, isRecoverable(m)])).toEqual([
    ["qwen3-coder", "GrepTool", true],
  ])
  expect(
    scan("Here is the format:\n\n```xml\n<tool_call>\n<function=Bash>\n</function>\n</tool_call>\n```\n", {
      tools: ["Bash"],
    }).markup,
  ).toEqual([])
})

test("README: policy", () => {
  const [m] = scan("<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>", {
    tools: ["read_file"],
  }).markup
  expect(isRecoverable(m!)).toBe(true)
  expect(isRecoverable(m!, { evidence: "envelope" })).toBe(false)
  expect(isRecoverable({ ...m!, offered: false })).toBe(false)
})
