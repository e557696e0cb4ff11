import type { Effect, Stream } from "effect"
import { LanguageModel, type Response, type Tool } from "effect/ai"

/**
 * The tools of any toolkit, as this package handles them: it never knows the caller's tools
 * statically, and the tool names it meets are the ones the model wrote.
 */
export type AnyTools = Record<string, Tool.Any>

/** A request's options, for any toolkit. */
export type AnyOptions = LanguageModel.GenerateTextOptions<AnyTools>

/**
 * The service's methods without their overloads: internally the options are not literal, and the
 * result types are the caller's (declared on the public signatures).
 */
export interface UntypedModel {
  readonly generateText: (
    options: AnyOptions,
  ) => Effect.Effect<
    LanguageModel.GenerateTextResponse<AnyTools, Response.ToolParametersMode>,
    unknown,
    unknown
  >
  readonly generateObject: (
    options: AnyOptions,
  ) => Effect.Effect<
    LanguageModel.GenerateObjectResponse<AnyTools, unknown, Response.ToolParametersMode>,
    unknown,
    unknown
  >
  readonly streamText: (
    options: AnyOptions,
  ) => Stream.Stream<Response.StreamPart<AnyTools, Response.ToolParametersMode>, unknown, unknown>
}

/**
 * The service, callable with options that are not literal. Its methods are overloaded on the
 * literal type of the options (toolkit, `disableToolCallResolution`, `toolCallValidation`), which
 * a caller that forwards someone else's options does not have: no overload accepts them, so the
 * service is viewed through {@link UntypedModel}.
 */
export const untyped = (model: LanguageModel.LanguageModel): UntypedModel =>
  // Forced: the overloads' union of signatures is not assignable to one non-generic signature.
  model as UntypedModel

/** A service's methods written once for any options (their results are the callers' to type). */
export interface ServiceMethods {
  readonly generateText: (options: AnyOptions) => Effect.Effect<unknown, unknown, unknown>
  readonly generateObject: (options: AnyOptions) => Effect.Effect<unknown, unknown, unknown>
  readonly streamText: (options: AnyOptions) => Stream.Stream<unknown, unknown, unknown>
}

/**
 * The inverse of {@link untyped}: a service from methods written once for any options, with the
 * `supportsSystemMessagesInHistory` of the service it stands in for.
 */
export const typed = (
  methods: ServiceMethods,
  of: Pick<LanguageModel.LanguageModel, "supportsSystemMessagesInHistory">,
): LanguageModel.LanguageModel => {
  const service: ServiceMethods & Omit<LanguageModel.LanguageModel, keyof ServiceMethods> = {
    [LanguageModel.TypeId]: LanguageModel.TypeId,
    supportsSystemMessagesInHistory: of.supportsSystemMessagesInHistory,
    ...methods,
  }
  // Forced: one function per method cannot be checked against the method's overloads.
  return service as LanguageModel.LanguageModel
}
