/**
 * Whether one model call gets recovery, and the tool names it offers.
 *
 * NOTE: skip rules belong in `recovery`'s turn planner (DESIGN.md, "Data flows one way"); this
 * module is the LangChain mapping of them until that planner lands, kept to the two rules every
 * adapter applies: no tools offered → skip (`no-tools`), `tool_choice: "none"` → skip.
 */

/** The outcome of planning one call. */
export type CallPlan =
  | { readonly kind: "recover"; readonly tools: readonly string[] }
  | { readonly kind: "skip"; readonly reason: "no-tools" | "tool-choice-none" }

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null
}

function nameOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.name === "string" && value.name.length > 0 ? value.name : undefined
}

/**
 * The name of one bound tool, in any of the shapes `bindTools` leaves in the call options: the
 * OpenAI function shape (`{ type: "function", function: { name } }`), a custom tool
 * (`{ type: "custom", custom: { name } }` or `{ type: "custom", name }`), a LangChain
 * `StructuredTool` or a `{ name, schema }` definition. Provider built-ins (`{ type: "web_search" }`)
 * have no name: the model cannot write a call to them as text.
 */
function toolName(tool: unknown): string | undefined {
  if (!isRecord(tool)) return undefined
  return nameOf(tool.function) ?? nameOf(tool.custom) ?? nameOf(tool)
}

/** Plans one call from its parsed call options (`tools`, `tool_choice`). */
export function planCall(options: unknown): CallPlan {
  const record = isRecord(options) ? options : {}
  if (record.tool_choice === "none") return { kind: "skip", reason: "tool-choice-none" }
  const tools: string[] = []
  if (Array.isArray(record.tools)) {
    for (const tool of record.tools) {
      const name = toolName(tool)
      if (name !== undefined && !tools.includes(name)) tools.push(name)
    }
  }
  return tools.length === 0 ? { kind: "skip", reason: "no-tools" } : { kind: "recover", tools }
}
