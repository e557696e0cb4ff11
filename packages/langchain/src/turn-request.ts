/**
 * Reads one LangChain model call for `recovery`'s `planTurn`: the names of the bound tools and
 * the tool choice. The skip rules and the budget are the planner's; this is only the mapping.
 */
import type { TurnRequest } from "@tool-rescue/recovery/adapter"

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

/** LangChain's `tool_choice` (`"auto" | "any" | "none" | "required" | name | object`) by kind. */
function toolChoiceOf(choice: unknown): TurnRequest["toolChoice"] {
  if (choice === undefined || choice === null || choice === "auto") return "auto"
  if (choice === "none") return "none"
  if (choice === "any" || choice === "required") return "required"
  return "tool"
}

/** The tools and tool choice of a call, from its parsed call options. */
export function turnRequest(options: unknown): TurnRequest {
  const record = isRecord(options) ? options : {}
  const tools: string[] = []
  if (Array.isArray(record.tools)) {
    for (const tool of record.tools) {
      const name = toolName(tool)
      if (name !== undefined && !tools.includes(name)) tools.push(name)
    }
  }
  return { tools, toolChoice: toolChoiceOf(record.tool_choice) }
}
