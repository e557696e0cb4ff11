/**
 * Leaked tool calls for the properties, built from the exact examples of FORMATS.md. Each
 * builder takes the tool name and an argument value (from a safe alphabet) and returns the text
 * the model would write. `markers` are substrings that only markup contains: if one reaches the
 * consumer, markup leaked.
 */
export interface LeakFormat {
  readonly format: string
  readonly build: (tool: string, value: string) => string
  readonly markers: readonly string[]
}

export const LEAK_FORMATS: readonly LeakFormat[] = [
  {
    format: "hermes",
    build: (tool, value) =>
      `<tool_call>\n{"name": "${tool}", "arguments": {"path": "${value}"}}\n</tool_call>`,
    markers: ["<tool_call>", "</tool_call>", '"arguments"'],
  },
  {
    format: "qwen3-coder",
    build: (tool, value) =>
      `<tool_call>\n<function=${tool}>\n<parameter=path>\n${value}\n</parameter>\n</function>\n</tool_call>`,
    markers: ["<tool_call>", "</tool_call>", "<function=", "<parameter=", "</parameter>", "</function>"],
  },
  {
    // The opening envelope is often missing (FORMATS.md row 1).
    format: "qwen3-coder",
    build: (tool, value) =>
      `<function=${tool}>\n<parameter=path>\n${value}\n</parameter>\n</function>\n</tool_call>`,
    markers: ["</tool_call>", "<function=", "<parameter=", "</parameter>", "</function>"],
  },
]

/** Every marker of every format. */
export const ALL_MARKERS: readonly string[] = [...new Set(LEAK_FORMATS.flatMap((f) => f.markers))]
