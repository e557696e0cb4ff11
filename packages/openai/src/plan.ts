/**
 * Whether a request gets recovery, and the tool names it offers. Recovery is skipped (and a
 * `recovery-skipped` event reported) when it cannot be right:
 * - no function or custom tools offered: there is nothing to call, so text is just text;
 * - `tool_choice: "none"`: the caller forbade tool calls;
 * - chat `n > 1`: several choices cannot be spliced into one retry;
 * - Responses `background: true`: the response is polled, not returned;
 * - Responses `conversation`: the server adds the malformed output to the conversation, so a
 *   retry could not leave it out.
 */

/** The outcome of planning one request. */
export type Plan =
  | { readonly kind: "recover"; readonly tools: readonly string[] }
  | { readonly kind: "skip"; readonly reason: string }

type Body = Readonly<Record<string, unknown>>

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null
}

function nameOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.name === "string" && value.name.length > 0 ? value.name : undefined
}

/** Function and custom tool names of a chat request (`tools[].function.name`, `tools[].custom.name`). */
export function chatToolNames(body: Body): string[] {
  const names: string[] = []
  if (!Array.isArray(body.tools)) return names
  for (const tool of body.tools) {
    if (!isRecord(tool)) continue
    const name = tool.type === "custom" ? nameOf(tool.custom) : nameOf(tool.function)
    if (name !== undefined && !names.includes(name)) names.push(name)
  }
  return names
}

/** Function and custom tool names of a Responses request (`tools[].name` of those types). */
export function responsesToolNames(body: Body): string[] {
  const names: string[] = []
  if (!Array.isArray(body.tools)) return names
  for (const tool of body.tools) {
    if (!isRecord(tool) || (tool.type !== "function" && tool.type !== "custom")) continue
    const name = nameOf(tool)
    if (name !== undefined && !names.includes(name)) names.push(name)
  }
  return names
}

/** Plans a chat completions request. */
export function planChat(body: Body): Plan {
  if (typeof body.n === "number" && body.n > 1) return { kind: "skip", reason: "multiple-choices" }
  if (body.tool_choice === "none") return { kind: "skip", reason: "tool-choice-none" }
  const tools = chatToolNames(body)
  if (tools.length === 0) return { kind: "skip", reason: "no-tools" }
  return { kind: "recover", tools }
}

/** Plans a Responses request. */
export function planResponses(body: Body): Plan {
  if (body.background === true) return { kind: "skip", reason: "background" }
  if (body.conversation !== undefined && body.conversation !== null)
    return { kind: "skip", reason: "conversation" }
  if (body.tool_choice === "none") return { kind: "skip", reason: "tool-choice-none" }
  const tools = responsesToolNames(body)
  if (tools.length === 0) return { kind: "skip", reason: "no-tools" }
  return { kind: "recover", tools }
}
