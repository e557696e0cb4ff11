import { fc, test } from "@fast-check/vitest"
import { prose } from "@tool-rescue/testing"
import { describe, expect } from "vitest"
import { findAnnouncedCall } from "../src/adapter.ts"

const tools = ["Glob", "Read", "Bash", "read_file", "list_directory", "get_weather"]

describe("findAnnouncedCall: announcements at the end of the answer", () => {
  test.each([
    ["I'll use the Glob tool to list all markdown files in the current directory.", "Glob"],
    ["Let me call read_file to see its contents:", "read_file"],
    ["Let me run `Bash` with ls.", "Bash"],
    ["I will now use the `get_weather` function for Paris.", "get_weather"],
    ["Sure! The file is long. I’m going to use Read on it…", "Read"],
    ["I'm going to call get weather for Paris", "get_weather"],
    ["Now I'll invoke the list directory tool.", "list_directory"],
    ["Here is the plan.\n\nFirst the config, then the tests.\nLet me use readFile on src/a.ts.", "read_file"],
  ])("%j → %s", (answer, tool) => {
    expect(findAnnouncedCall(answer, tools)?.toolName).toBe(tool)
  })
})

describe("findAnnouncedCall: never on prose that only mentions a tool", () => {
  test.each([
    "The Glob tool lists files; I used it earlier.",
    "I'll use the Glob tool to list the files. Here they are: a.md, b.md.",
    "I won't use the Bash tool for this.",
    "I will not call read_file again.",
    "I'll answer without using Bash.",
    "Should I use the Glob tool?",
    "I'll.\n\nI'll Should I call get_weather?",
    "I'll use the Glob tool, okay?",
    "Let me call read_file on it, shall I?!",
    "You can use the Glob tool to list files.",
    "Let me know if you want me to use Glob.",
    "I'll use a regular expression instead.",
    "I'll You can use bash for that.",
    "I'll show how you can use the Glob tool.",
    "I'll use the rm tool to delete it.",
    "Let me read the file.",
    "```sh\n# I'll use the Glob tool\n",
    "Example:\n\n    I'll use the Glob tool.",
    "I'll use `the Glob tool` next.",
    "",
    "   \n ",
  ])("%j", (answer) => {
    expect(findAnnouncedCall(answer, tools)).toBeUndefined()
  })

  test("no tools offered, nothing announced", () => {
    expect(findAnnouncedCall("I'll use the Glob tool.", [])).toBeUndefined()
  })

  test("an announcement before a closed fence is read; inside an open one it is not", () => {
    expect(findAnnouncedCall("```\ncode\n```\nLet me use Glob.", tools)?.toolName).toBe("Glob")
    expect(findAnnouncedCall("```\nLet me use Glob.", tools)).toBeUndefined()
  })

  test("a megabyte answer is read only at its end", () => {
    const long = `${"word ".repeat(200_000)}I'll use the Glob tool.`
    expect(findAnnouncedCall(long, tools)?.toolName).toBe("Glob")
  })

  // Generated answers that mention offered tools in every way but an announcement at the end:
  // none may be taken for one (a false positive costs a retry of a good answer).
  const mentions = (tool: string) =>
    fc.constantFrom(
      `The ${tool} tool lists files.`,
      `I used ${tool} earlier and it worked.`,
      `You can use ${tool} for that.`,
      `I won't use ${tool} for this.`,
      `Should I call ${tool}?`,
      `\`${tool}\` takes a pattern.`,
      `Let me know if you want me to run ${tool}.`,
      `I'll use ${tool} to list them. Here they are: a.md and b.md.`,
      `\`\`\`\nI'll use ${tool} now.\n\`\`\``,
      `I'll explain what ${tool} does.`,
    )
  const offeredTools = ["Glob", "bash", "get_weather", "list_directory"]
  test.prop([
    fc.array(
      fc.oneof(
        prose({ maxSentences: 3 }).map((p) => p.text),
        fc.constantFrom(...offeredTools).chain(mentions),
      ),
      {
        minLength: 1,
        maxLength: 6,
      },
    ),
  ])("answers that only mention offered tools are never announcements", (pieces) => {
    expect(findAnnouncedCall(pieces.join(" "), offeredTools)).toBeUndefined()
  })
})
