import { suggestToolNames } from "@tool-rescue/recovery/adapter"
import { Cause, Context, Effect, Result, Schema } from "effect"
import { AiError, Response, type Tool, Toolkit } from "effect/ai"
import { jsonParams, makeToolCallErrorPart, type ToolCallErrorPart } from "./tool-call-error-part.ts"

/** A decoded tool call as the deferred decoder returns it: any name, raw params. */
export type RawToolCall = Response.ToolCallPart<string, unknown>

/** How {@link classifyToolCall} judges calls. */
export interface Classifier {
  /** The toolkit's tools by name (empty without a toolkit). */
  readonly tools: Readonly<Record<string, Tool.Any>>
  /**
   * Effect resolves the calls afterwards (the Toolkit validates known tools' params per
   * `failureMode`): only unknown names and non-JSON params are ours to handle.
   */
  readonly resolution: boolean
  /**
   * Error parts describe the calls that could not run (`unknownToolCalls: "return"`); without
   * them (the default option) a call to an unknown tool fails the operation.
   */
  readonly errorParts: boolean
}

/**
 * Classifies one structured tool call under `unknownToolCalls: "return"`:
 * - provider-executed calls are left alone (Effect validates them);
 * - a name the toolkit does not hold becomes a {@link ToolCallErrorPart} carrying the very
 *   `ToolNotFoundError` that `Toolkit.handle` fails with;
 * - params that are not JSON (a provider built on `LanguageModel.make` may hand over a `bigint`)
 *   are invalid params: they follow the tool's `failureMode`, so the history always exports;
 * - with resolution disabled, params are validated here as the Toolkit would (full decode),
 *   following `failureMode`: `"return"` gives an error part, `"error"` fails with the
 *   Toolkit's `ToolParameterValidationError`; a valid call keeps Effect's own encoded params;
 * - with resolution enabled, known tools go on to Effect's own resolution unchanged.
 */
export const classifyToolCall = (
  part: RawToolCall,
  classifier: Classifier,
): Effect.Effect<RawToolCall | ToolCallErrorPart, AiError.AiError> =>
  Effect.suspend(() => {
    if (part.providerExecuted) return Effect.succeed(part)
    const { tools } = classifier
    const checked = jsonParams(part.params)
    const tool = Object.hasOwn(tools, part.name) ? tools[part.name] : undefined
    if (tool === undefined) {
      const error = toolkitError(
        part.name,
        new AiError.ToolNotFoundError({
          toolName: part.name,
          availableTools: nearestFirst(part.name, tools),
        }),
      )
      return Effect.succeed(errorPart(part, checked.value, error))
    }
    if (!checked.json) {
      return parameterFailure(tool, part, checked.value, `Tool parameters are not JSON: ${checked.problem}`)
    }
    if (classifier.resolution) return Effect.succeed(part)
    return validateParams(tool, part, checked.value)
  })

/**
 * "Did you mean": Effect's `ToolNotFoundError` carries the available tools, and the model reads
 * them in order, so the names nearest the unknown one (recovery's `suggestToolNames`) come first.
 */
const nearestFirst = (name: string, tools: Readonly<Record<string, Tool.Any>>): string[] => {
  const names = Object.keys(tools)
  const near = suggestToolNames(name, names)
  return [...near, ...names.filter((n) => !near.includes(n))]
}

/** Disabled resolution: validate as `Toolkit.handle` does, then keep Effect's encoded params. */
const validateParams = (
  tool: Tool.Any,
  part: RawToolCall,
  params: Schema.Json,
): Effect.Effect<RawToolCall | ToolCallErrorPart, AiError.AiError> => {
  // `Tool.dynamic` may carry a JSON Schema instead of an Effect Schema: the Toolkit accepts
  // such params as they are.
  if (!Schema.isSchema(tool.parametersSchema)) return Effect.succeed(part)
  const schema = tool.parametersSchema
  const decode = decoder(schema)
  const decodeEncoded = decoder(Schema.toEncoded(schema))
  return Effect.flatMap(
    Effect.result(decode(params)),
    (decoded): Effect.Effect<RawToolCall | ToolCallErrorPart, AiError.AiError> => {
      if (Result.isFailure(decoded)) return parameterFailure(tool, part, params, decoded.failure.message)
      // Strict mode (`disableToolCallResolution` without deferral) returns the params decoded with
      // the encoded schema: the same value a response without our option would hold.
      return Effect.flatMap(
        Effect.result(decodeEncoded(params)),
        (encoded): Effect.Effect<RawToolCall | ToolCallErrorPart, AiError.AiError> =>
          Result.isFailure(encoded)
            ? parameterFailure(tool, part, params, encoded.failure.message)
            : Effect.succeed(
                Response.makePart("tool-call", {
                  id: part.id,
                  name: part.name,
                  params: encoded.success,
                  providerExecuted: false,
                  metadata: part.metadata,
                }),
              ),
      )
    },
  )
}

/**
 * A decoder for a tool's parameter schema. Forced cast: `Tool.Any` types the schema as
 * `Schema.Top`, whose decoding services are `unknown`; the services a tool's parameters need are
 * the request's own (Effect's `ExtractServices` requires them of the caller), and the
 * classification runs inside that request.
 */
const decoder = (schema: Schema.Top) =>
  Schema.decodeUnknownEffect(schema) as (u: unknown) => Effect.Effect<unknown, Schema.SchemaError>

/** Invalid params of a known tool, per its `failureMode` (Toolkit.ts `handle`). */
const parameterFailure = (
  tool: Tool.Any,
  part: RawToolCall,
  params: Schema.Json,
  description: string,
): Effect.Effect<ToolCallErrorPart, AiError.AiError> => {
  const error = toolkitError(
    part.name,
    new AiError.ToolParameterValidationError({ toolName: part.name, description }),
  )
  if (tool.failureMode === "error") {
    // Annotated like the Toolkit's own failure, so `Toolkit.FailureOrigin` reads "parameters".
    return Effect.failCause(
      Cause.annotate(Cause.fail(error), Context.make(Toolkit.FailureOrigin, "parameters")),
    )
  }
  return Effect.succeed(errorPart(part, params, error))
}

/** An `AiError` exactly as `Toolkit.handle` builds it. */
const toolkitError = (name: string, reason: AiError.AiErrorReason): AiError.AiError =>
  AiError.make({ module: "Toolkit", method: `${name}.handle`, reason })

const errorPart = (part: RawToolCall, params: Schema.Json, error: AiError.AiError): ToolCallErrorPart =>
  makeToolCallErrorPart({ id: part.id, name: part.name, params, error, metadata: part.metadata })
