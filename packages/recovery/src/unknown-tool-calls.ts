import { suggestToolNames } from "./suggest-tool-names.ts"
/**
 * The `unknownToolCalls` option of the adapters: what happens to a structured tool call that
 * names a tool not offered in the request. `"error"` (default) keeps the framework's own
 * behaviour; `"return"` turns the call into a model-visible failed tool result
 * ({@link ToolCallError}) instead of failing the turn.
 *
 * @example
 * ```ts
 * import type { UnknownToolCalls } from "@tool-rescue/recovery"
 *
 * const option: UnknownToolCalls = "return"
 * ```
 */
export type UnknownToolCalls = "error" | "return"

/**
 * A structured tool call that named a tool not offered, returned as a value instead of failing
 * the turn. `params` is the provider's original argument text, unchanged (not parsed, not
 * re-serialised), so it can be shown to the model exactly as it wrote it.
 *
 * @example
 * ```ts
 * import type { ToolCallError } from "@tool-rescue/recovery"
 *
 * const error: ToolCallError = {
 *   name: "delete_everything",
 *   params: '{"force": true}',
 *   error: 'Unknown tool "delete_everything": no such tool is available, so nothing was run. Available tools: read_file.',
 * }
 * ```
 */
export interface ToolCallError {
  /** The tool name as the model wrote it. */
  readonly name: string
  /** The provider's original argument text, unchanged. */
  readonly params: string
  /** A message for the model: the tool does not exist, and which tools do. */
  readonly error: string
}

/**
 * Whether a tool name is one of the offered tools.
 *
 * @example
 * ```ts
 * import type { ToolCallClass } from "@tool-rescue/recovery/adapter"
 *
 * const known: ToolCallClass = "offered"
 * ```
 */
export type ToolCallClass = "offered" | "unknown"

/**
 * Classifies a structured call's tool name against the offered tools (exact, case-sensitive
 * match: providers send the name they were given).
 *
 * @example
 * ```ts
 * import { classifyToolCall } from "@tool-rescue/recovery/adapter"
 *
 * classifyToolCall("read_file", ["read_file", "bash"]) // "offered"
 * classifyToolCall("ReadFile", ["read_file", "bash"]) // "unknown"
 * ```
 */
export function classifyToolCall(name: string, offered: Iterable<string>): ToolCallClass {
  if (offered instanceof Set) return offered.has(name) ? "offered" : "unknown"
  for (const tool of offered) if (tool === name) return "offered"
  return "unknown"
}

/**
 * The model-visible message for a call to a tool that was not offered.
 *
 * @example
 * ```ts
 * import { unknownToolMessage } from "./unknown-tool-calls.ts"
 *
 * unknownToolMessage("rm", ["read_file"])
 * // 'Unknown tool "rm": no such tool is available, so nothing was run. Available tools: read_file.'
 * unknownToolMessage("readFile", ["bash", "read_file"])
 * // 'Unknown tool "readFile": no such tool is available, so nothing was run. Did you mean "read_file"? Available tools: bash, read_file.'
 * ```
 */
export function unknownToolMessage(name: string, offered: Iterable<string>): string {
  const list = [...offered]
  const near = suggestToolNames(name, list)
  const didYouMean =
    near.length === 0 ? "" : ` Did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?`
  const available = list.length === 0 ? "No tools are available." : `Available tools: ${list.join(", ")}.`
  return `Unknown tool ${JSON.stringify(name)}: no such tool is available, so nothing was run.${didYouMean} ${available}`
}

/**
 * Builds the {@link ToolCallError} for a call to a tool that was not offered. `params` is kept
 * exactly as given.
 *
 * @example
 * ```ts
 * import { classifyToolCall, toolCallError } from "@tool-rescue/recovery/adapter"
 *
 * const offered = ["read_file"]
 * const call = { name: "rm", params: '{"path":"/"}' }
 * if (classifyToolCall(call.name, offered) === "unknown") {
 *   const error = toolCallError(call.name, call.params, offered)
 *   // error.params === '{"path":"/"}'
 * }
 * ```
 */
export function toolCallError(name: string, params: string, offered: Iterable<string>): ToolCallError {
  return { name, params, error: unknownToolMessage(name, offered) }
}

/**
 * The value of an adapter option is statically the default (`"error"`, or left out).
 * `[O] extends […]` keeps unions from distributing: `"error" | "return"` is not the default.
 */
type IsDefault<O> = [O] extends [never] ? false : [O] extends ["error" | undefined] ? true : false

/**
 * `true` when an `unknownToolCalls` option of type `O` may return tool-call errors: `false` only
 * when `O` is statically the default (`"error"` or left out, i.e. `undefined`).
 *
 * @example
 * ```ts
 * import type { ReturnsToolCallErrors } from "@tool-rescue/recovery"
 *
 * type A = ReturnsToolCallErrors<"error"> // false
 * type B = ReturnsToolCallErrors<"return"> // true
 * type C = ReturnsToolCallErrors<"error" | "return"> // true
 * ```
 */
export type ReturnsToolCallErrors<O> = IsDefault<O> extends true ? false : true

/**
 * The type of a response's `toolCallErrors` for an `unknownToolCalls` option of type `O`:
 * `Array<never>` for the default (`"error"` or left out), `Array<ToolCallError>` for `"return"`,
 * and `Array<ToolCallError>` too when the option is not statically known (`"error" | "return"`,
 * `string`), since it may then hold errors.
 *
 * @example
 * ```ts
 * import type { ToolCallErrorsFor, UnknownToolCalls } from "@tool-rescue/recovery"
 *
 * declare function generate<O extends UnknownToolCalls = "error">(options: { unknownToolCalls?: O }): {
 *   toolCallErrors: ToolCallErrorsFor<O>
 * }
 * const a = generate({}).toolCallErrors // Array<never>
 * const b = generate({ unknownToolCalls: "return" }).toolCallErrors // Array<ToolCallError>
 * ```
 */
export type ToolCallErrorsFor<O> = IsDefault<O> extends true ? Array<never> : Array<ToolCallError>

/**
 * `Part` when an `unknownToolCalls` option of type `O` may produce it, `never` for the default:
 * adapters add their tool-call-error part to a union with it, so the default union is exactly
 * the framework's own.
 *
 * @example
 * ```ts
 * import type { ToolCallErrorPartFor } from "@tool-rescue/recovery"
 *
 * type ErrorPart = { type: "tool-call-error"; name: string; params: string; error: string }
 * type Parts<O> = { type: "text"; text: string } | ToolCallErrorPartFor<O, ErrorPart>
 * type Default = Parts<"error"> // only the text part
 * ```
 */
export type ToolCallErrorPartFor<O, Part> = IsDefault<O> extends true ? never : Part
