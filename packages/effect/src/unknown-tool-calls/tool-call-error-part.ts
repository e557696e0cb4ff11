import { Schema } from "effect"
import { AiError, Response } from "effect/ai"

/**
 * A structured tool call that could not be run, returned as a value instead of failing the
 * operation (only with `unknownToolCalls: "return"`). It describes the call; the response's
 * `content` also carries the call's standard parts, so that Effect's own
 * `Prompt.fromResponseParts(response.content)` (and `Chat`) put the call into the assistant
 * message and its failed result into the tool message, and the history never holds an unanswered
 * call:
 *
 * - a {@link ToolCallErrorCallPart} just before it (the `tool-call`, where the model made it);
 * - a {@link ToolCallErrorResultPart} (the failed `tool-result`, the very result the Toolkit
 *   returns for a failed call under `failureMode: "return"`): in a stream right after it, before
 *   `finish`; in `generateText` after the response's parts, with the tool results, as Effect
 *   orders them.
 *
 * `Prompt.fromResponseParts` ignores this part; `response.toolCallErrors` lists it.
 *
 * - `name` is the tool name as the model wrote it.
 * - `params` is the provider's argument value unchanged when it is JSON (malformed argument
 *   text such as `{"broken` stays that string); a value that is not JSON (a `bigint`, `NaN`, a
 *   cycle) is replaced by a readable rendering so that the history always exports.
 * - `error` is the `AiError` the Toolkit itself produces for that call: `ToolNotFoundError` for
 *   a tool the toolkit does not hold, `ToolParameterValidationError` for parameters it rejects.
 *
 * @example
 * ```ts
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const describe = (part: ToolCallRecovery.ToolCallErrorPart): string =>
 *   `${part.name} failed: ${part.error.reason.message}`
 * ```
 */
interface ErrorPart {
  readonly type: "tool-call-error"
  /** The provider's tool call id. */
  readonly id: string
  /** The tool name as the model wrote it. */
  readonly name: string
  /** The provider's argument value (JSON), unchanged when it was JSON. */
  readonly params: Schema.Json
  /** What the Toolkit reports for this call; encoded, it is the failed tool result the model sees. */
  readonly error: AiError.AiError
  /** Always `false`: provider-executed calls are never turned into errors. */
  readonly providerExecuted: false
  /** The provider metadata of the original tool call part. */
  readonly metadata: Response.ProviderMetadata
}

/**
 * The encoded (JSON) form of a {@link ToolCallErrorPart}.
 *
 * @example
 * ```ts
 * import type { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const stored = (part: ToolCallRecovery.ToolCallErrorPartEncoded): string => JSON.stringify(part)
 * ```
 */
export interface ToolCallErrorPartEncoded {
  readonly type: "tool-call-error"
  readonly id: string
  readonly name: string
  readonly params: Schema.Json
  readonly error: AiError.AiErrorEncoded
  readonly providerExecuted: false
  readonly metadata: { readonly [key: string]: Schema.Json | null }
}

/**
 * Schema of a {@link ToolCallErrorPart}: it validates a part, and encodes it to JSON and back
 * (for persisting a response next to `Response.Part(toolkit)`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const isErrorPart = Schema.is(ToolCallRecovery.ToolCallErrorPart)
 * const toJson = Schema.encodeSync(Schema.fromJsonString(ToolCallRecovery.ToolCallErrorPart))
 * ```
 */
const ErrorPart: Schema.Codec<ErrorPart, ToolCallErrorPartEncoded> = Schema.Struct({
  type: Schema.Literal("tool-call-error"),
  id: Schema.String,
  name: Schema.String,
  params: Schema.Json,
  error: AiError.AiError,
  providerExecuted: Schema.Literal(false),
  metadata: Response.ProviderMetadata,
}).annotate({ identifier: "ToolCallErrorPart" })

// One name for the type and the schema, declared under another local name on purpose:
// rollup-plugin-dts (6.5.1) turns a namespace member whose bundle-local name equals its exported
// name into either a type or a value, so `ToolCallRecovery.ToolCallErrorPart` lost its type in
// `dist/index.d.ts`. A renamed export is re-exported as is, with both meanings
// (typetests/dist checks the built declarations).
export { ErrorPart as ToolCallErrorPart }

/**
 * Whether a value is a {@link ToolCallErrorPart} (by its `type`; use the schema to validate it).
 *
 * @example
 * ```ts
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * declare const parts: ReadonlyArray<{ readonly type: string }>
 * const errors = parts.filter(ToolCallRecovery.isToolCallErrorPart)
 * ```
 */
export function isToolCallErrorPart(value: unknown): value is ErrorPart {
  return typeof value === "object" && value !== null && "type" in value && value.type === "tool-call-error"
}

/**
 * The standard `tool-call` part that comes with a {@link ToolCallErrorPart} in a response: the
 * call as the model made it (any tool name, the part's JSON `params`). Its name need not be in the
 * toolkit, and a known tool's params need not satisfy the tool's schema: that is why it failed.
 *
 * @example
 * ```ts
 * import type { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const label = (part: ToolCallRecovery.ToolCallErrorCallPart): string => `${part.name}(${JSON.stringify(part.params)})`
 * ```
 */
export type ToolCallErrorCallPart = Response.ToolCallPart<string, Schema.Json>

/**
 * The standard failed `tool-result` part that comes with a {@link ToolCallErrorPart} in a
 * response: `isFailure: true`, `result` the part's `AiError` and `encodedResult` that error
 * encoded, the very result the Toolkit returns for a failed call under `failureMode: "return"`.
 * It is what the model sees in the next request.
 *
 * @example
 * ```ts
 * import type { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const reason = (part: ToolCallRecovery.ToolCallErrorResultPart): string => part.result.reason._tag
 * ```
 */
export type ToolCallErrorResultPart = Response.ToolResultFailure<string, AiError.AiError>

const encodeAiError = Schema.encodeSync(AiError.AiError)

/** The {@link ToolCallErrorCallPart} a {@link ToolCallErrorPart} comes with. */
export function callPartOf(part: ErrorPart): ToolCallErrorCallPart {
  return Response.makePart("tool-call", {
    id: part.id,
    name: part.name,
    params: part.params,
    providerExecuted: false,
    metadata: part.metadata,
  })
}

/** The {@link ToolCallErrorResultPart} a {@link ToolCallErrorPart} comes with. */
export function resultPartOf(part: ErrorPart): ToolCallErrorResultPart {
  return Response.makePart("tool-result", {
    id: part.id,
    name: part.name,
    isFailure: true,
    result: part.error,
    encodedResult: encodeAiError(part.error),
    providerExecuted: false,
    preliminary: false,
    // Forced: `makePart` types a `tool-result` as success or failure, though `isFailure: true`
    // makes it the failure.
  }) as ToolCallErrorResultPart
}

/** What {@link makeToolCallErrorPart} needs: the original call and the error to report. */
export interface ToolCallErrorInit {
  readonly id: string
  readonly name: string
  /** JSON params (see {@link jsonParams}). */
  readonly params: Schema.Json
  readonly error: AiError.AiError
  readonly metadata: Response.ProviderMetadata
}

/** Builds a {@link ToolCallErrorPart}. Internal: parts come from the accessors. */
export function makeToolCallErrorPart(init: ToolCallErrorInit): ErrorPart {
  return {
    type: "tool-call-error",
    id: init.id,
    name: init.name,
    params: init.params,
    error: init.error,
    providerExecuted: false,
    metadata: init.metadata,
  }
}

/** The outcome of {@link jsonParams}. */
export type JsonParams =
  | { readonly json: true; readonly value: Schema.Json }
  | { readonly json: false; readonly value: string; readonly problem: string }

/**
 * Checks that `value` is JSON exactly as it stands (so `JSON.stringify` and `JSON.parse` give
 * it back unchanged): `null`, booleans, strings, finite numbers, dense arrays and plain objects
 * of those, without cycles. Such a value is returned as is, never copied. Anything else (a
 * `bigint`, `NaN`, `undefined`, a function, a `Date`, a class instance, a cycle, a throwing
 * getter, a nesting too deep for the stack) is rendered as a readable string instead, and the
 * problem is named, so that a history holding it still exports (`Chat.exportJson`).
 */
export function jsonParams(value: unknown): JsonParams {
  let problem: string | undefined
  try {
    problem = jsonProblem(value, new Set())
  } catch (error) {
    // A Proxy trap or getter threw, or the nesting overflowed the stack.
    problem = error instanceof RangeError ? "the value is nested too deeply" : "reading the value threw"
  }
  // Forced: `jsonProblem` found nothing, which TypeScript cannot follow into the value's type.
  if (problem === undefined) return { json: true, value: value as Schema.Json }
  return { json: false, value: render(value), problem }
}

/**
 * The first reason `value` is not JSON as it stands, or undefined. `ancestors` (the objects on the
 * path to `value`) detects cycles; a `Set`, so that a deep nesting costs linear time, not the
 * quadratic time of searching an array at every level (100,000 nested arrays took 40 ms).
 */
function jsonProblem(value: unknown, ancestors: Set<unknown>): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined
    case "number":
      return Number.isFinite(value) ? undefined : `${String(value)} is not a JSON number`
    case "bigint":
      return `${String(value)}n is a bigint, not a JSON number`
    case "undefined":
      return "undefined is not JSON"
    case "function":
      return "a function is not JSON"
    case "symbol":
      return "a symbol is not JSON"
    case "object": {
      if (value === null) return undefined
      if (ancestors.has(value)) return "the value contains a cycle"
      ancestors.add(value)
      const found = Array.isArray(value) ? arrayProblem(value, ancestors) : objectProblem(value, ancestors)
      ancestors.delete(value)
      return found
    }
    default:
      return `a ${typeof value} is not JSON`
  }
}

function arrayProblem(array: readonly unknown[], ancestors: Set<unknown>): string | undefined {
  if (Object.getPrototypeOf(array) !== Array.prototype) return "an array subclass is not JSON"
  for (let i = 0; i < array.length; i++) {
    // A hole would become `null` in JSON: the value would not come back unchanged.
    if (!Object.hasOwn(array, i)) return "a sparse array is not JSON"
    const found = jsonProblem(array[i], ancestors)
    if (found !== undefined) return found
  }
  return undefined
}

function objectProblem(object: object, ancestors: Set<unknown>): string | undefined {
  const proto = Object.getPrototypeOf(object)
  if (proto !== Object.prototype && proto !== null) {
    return `a ${object.constructor?.name ?? "class"} instance is not JSON`
  }
  if (Object.getOwnPropertySymbols(object).length > 0) return "a symbol key is not JSON"
  for (const key of Object.keys(object)) {
    const descriptor = Object.getOwnPropertyDescriptor(object, key)
    if (descriptor !== undefined && !("value" in descriptor)) return "a getter is not JSON"
    const found = jsonProblem(descriptor?.value, ancestors)
    if (found !== undefined) return found
  }
  return undefined
}

/** A readable, never-throwing rendering of a value that is not JSON (for the model and for logs). */
function render(value: unknown): string {
  if (typeof value !== "object" || value === null) return renderPrimitive(value)
  try {
    const seen = new WeakSet<object>()
    const text = JSON.stringify(value, (_key, item: unknown) => {
      switch (typeof item) {
        case "number":
          return Number.isFinite(item) ? item : String(item)
        case "bigint":
        case "undefined":
        case "function":
        case "symbol":
          return renderPrimitive(item)
        case "object":
          if (item === null) return item
          if (seen.has(item)) return "[circular]"
          seen.add(item)
          return item
        default:
          return item
      }
    })
    return text ?? "[unrepresentable value]"
  } catch {
    try {
      return String(value)
    } catch {
      return "[unrepresentable value]"
    }
  }
}

function renderPrimitive(value: unknown): string {
  switch (typeof value) {
    case "bigint":
      return `${String(value)}n`
    case "function":
      return `[function ${value.name}]`
    default:
      return String(value)
  }
}
