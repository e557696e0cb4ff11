// biome-ignore-all lint/suspicious/noExplicitAny: Effect's response and tool types are generic over the caller's toolkit; `any` is how Effect itself spells "any toolkit".
import { Effect, type Layer, Schema, Stream } from "effect"
import { AiError, Chat, LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import { ToolCallRecovery } from "../../src/index.ts"
import { finish, type ScriptedModel, scriptedModel } from "./scripted-model.ts"

/** A tool whose parameter errors come back to the model. */
const City: Schema.Struct<{ readonly city: Schema.String }> = Schema.Struct({ city: Schema.String })
const Zone: Schema.Struct<{ readonly zone: Schema.String }> = Schema.Struct({ zone: Schema.String })

type ToolOf<Name extends string, Params extends Schema.Top, Mode extends "error" | "return"> = Tool.Tool<
  Name,
  {
    readonly parameters: Params
    readonly success: Schema.String
    readonly failure: Schema.Never
    readonly failureMode: Mode
  },
  never
>

export const GetWeather: ToolOf<"GetWeather", typeof City, "return"> = Tool.make("GetWeather", {
  parameters: City,
  success: Schema.String,
  failureMode: "return",
})

/** The same shape, but parameter errors fail the operation (Effect's default). */
export const GetTime: ToolOf<"GetTime", typeof Zone, "error"> = Tool.make("GetTime", {
  parameters: Zone,
  success: Schema.String,
})

export const toolkit: Toolkit.Toolkit<{
  readonly GetWeather: typeof GetWeather
  readonly GetTime: typeof GetTime
}> = Toolkit.make(GetWeather, GetTime)

/** Handlers that record every call they run, so tests can prove a handler did not run. */
export function recordingHandlers(): { readonly ran: string[]; readonly layer: Layer.Layer<Handlers> } {
  const ran: string[] = []
  const record = (name: string, result: string) =>
    Effect.sync(() => {
      ran.push(name)
      return result
    })
  const layer = toolkit.toLayer({
    GetWeather: ({ city }) => record(`GetWeather:${city}`, `sunny in ${city}`),
    GetTime: ({ zone }) => record(`GetTime:${zone}`, `noon in ${zone}`),
  })
  return { ran, layer }
}

/** The services the handlers of `toolkit` provide. */
export type Handlers = Tool.HandlersFor<Toolkit.Tools<typeof toolkit>>

export type Mode = "generateText" | "streamText"
export const modes: readonly Mode[] = ["generateText", "streamText"]

/**
 * A provider that answers one request with `parts`: as a `generateText` response, or streamed
 * one part per chunk (each chunk is one provider event; a text part becomes a
 * `text-start` / `text-delta` / `text-end` block).
 */
export function oneResponse(mode: Mode, parts: ReadonlyArray<Response.PartEncoded>): ScriptedModel {
  return mode === "generateText"
    ? scriptedModel({ generate: [parts] })
    : scriptedModel({ stream: [parts.flatMap(asStreamParts).map((part) => [part])] })
}

/** A response part as the stream parts a provider would send for it (a text block is named by its index). */
export function asStreamParts(part: Response.PartEncoded, index: number): Response.StreamPartEncoded[] {
  if (part.type !== "text") return [part as Response.StreamPartEncoded]
  const id = `t${index}`
  return [
    { type: "text-start", id },
    { type: "text-delta", id, delta: part.text },
    { type: "text-end", id },
  ]
}

/** Runs our accessor in `mode` and returns the response parts. */
export const runOurs = (
  mode: Mode,
  options: LanguageModel.GenerateTextOptions<any> & ToolCallRecovery.UnknownToolCallsOptions,
): Effect.Effect<
  Array<Response.AllParts<any> | ToolCallRecovery.ToolCallErrorPart>,
  unknown,
  LanguageModel.LanguageModel
> =>
  (mode === "generateText"
    ? Effect.map(ToolCallRecovery.generateText(options as never), (response) => [...response.content])
    : Stream.runCollect(ToolCallRecovery.streamText(options as never))) as Effect.Effect<
    Array<Response.AllParts<any> | ToolCallRecovery.ToolCallErrorPart>,
    unknown,
    LanguageModel.LanguageModel
  >

/** Runs Effect's own accessor in `mode` and returns the response parts. */
export const runEffects = (
  mode: Mode,
  options: LanguageModel.GenerateTextOptions<any>,
): Effect.Effect<Array<Response.AllParts<any>>, unknown, LanguageModel.LanguageModel> =>
  (mode === "generateText"
    ? Effect.map(LanguageModel.generateText(options as never), (response) => [...response.content])
    : Stream.runCollect(LanguageModel.streamText(options as never))) as Effect.Effect<
    Array<Response.AllParts<any>>,
    unknown,
    LanguageModel.LanguageModel
  >

export const call = (id: string, name: string, params: unknown): Response.ToolCallPartEncoded => ({
  type: "tool-call",
  id,
  name,
  params,
})

export { finish }

/** The `_tag` of an operation's failure reason (`module/reason`), for comparing failures. */
export const failureOf = (error: unknown): string =>
  AiError.isAiError(error) ? `${error.module}/${error.reason._tag}` : `not an AiError: ${String(error)}`

/**
 * Effect's own `Prompt.fromResponseParts`, as users and `Chat` call it on a response's parts. Its
 * signature does not know the `tool-call-error` part (Effect ignores it at run time): hence the cast.
 */
export const effectsHistory = (
  parts: ReadonlyArray<Response.AnyPart | ToolCallRecovery.ToolCallErrorPart>,
): Prompt.Prompt => Prompt.fromResponseParts(parts as ReadonlyArray<Response.AnyPart>)

/** Appends a response to a prompt with Effect's own `fromResponseParts` and exports it as Chat JSON. */
export const exportHistory = (
  parts: ReadonlyArray<Response.AnyPart | ToolCallRecovery.ToolCallErrorPart>,
): Effect.Effect<string, AiError.AiError> =>
  Effect.flatMap(
    Chat.fromPrompt(Prompt.concat(Prompt.make("hi"), effectsHistory(parts))),
    (chat) => chat.exportJson,
  )

/** A history's tool calls and tool results, by message role, for assertions. */
export interface HistoryShape {
  readonly roles: ReadonlyArray<string>
  /** `[id, name, params]` of the assistant's tool calls, in order. */
  readonly calls: ReadonlyArray<readonly [string, string, unknown]>
  /** `[id, name, isFailure, reason]` of the tool message's results (`reason`: the encoded AiError's tag). */
  readonly results: ReadonlyArray<readonly [string, string, boolean, string | undefined]>
}

export function historyShape(prompt: Prompt.Prompt): HistoryShape {
  const calls: Array<readonly [string, string, unknown]> = []
  const results: Array<readonly [string, string, boolean, string | undefined]> = []
  for (const message of prompt.content) {
    if (message.role === "assistant") {
      for (const part of message.content)
        if (part.type === "tool-call") calls.push([part.id, part.name, part.params])
    } else if (message.role === "tool") {
      for (const part of message.content) {
        if (part.type !== "tool-result") continue
        const reason = (part.result as { reason?: { _tag?: unknown } } | null)?.reason?._tag
        results.push([part.id, part.name, part.isFailure, typeof reason === "string" ? reason : undefined])
      }
    }
  }
  return { roles: prompt.content.map((message) => message.role), calls, results }
}
