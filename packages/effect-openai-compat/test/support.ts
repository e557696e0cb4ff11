import { type ReplayScript, type ReplayServer, startReplayServer } from "@tool-rescue/testing"
import { Effect, Exit, type Layer, Schema, Stream } from "effect"
import { AiError, LanguageModel, type Response, Tool, Toolkit } from "effect/ai"
import { type OpenAiCompatibleModelOptions, openAiCompatibleModel } from "../src/index.ts"

type Model = Layer.Layer<LanguageModel.LanguageModel>

/** A replay server running `script`, and the provider talking to it over real HTTP. */
export const withServer = <A, E, R>(
  script: ReplayScript,
  use: (server: ReplayServer, model: Model) => Effect.Effect<A, E, R>,
  options?: Partial<OpenAiCompatibleModelOptions>,
): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    Effect.promise(() => startReplayServer({ script })),
    (server) => use(server, openAiCompatibleModel({ baseURL: server.url, model: "replay", ...options })),
    (server) => Effect.promise(() => server.close()),
  )

const City: Schema.Struct<{ readonly city: Schema.String }> = Schema.Struct({ city: Schema.String })

export const GetWeather: Tool.Tool<
  "GetWeather",
  {
    readonly parameters: typeof City
    readonly success: Schema.String
    readonly failure: Schema.Never
    readonly failureMode: "error"
  },
  never
> = Tool.make("GetWeather", {
  description: "The weather in a city",
  parameters: City,
  success: Schema.String,
})

export const toolkit: Toolkit.Toolkit<{ readonly GetWeather: typeof GetWeather }> = Toolkit.make(GetWeather)

/** Handlers for {@link toolkit} that record the cities asked for. */
export function weatherHandlers(): {
  readonly cities: string[]
  readonly layer: Layer.Layer<Tool.HandlersFor<Toolkit.Tools<typeof toolkit>>>
} {
  const cities: string[] = []
  const layer = toolkit.toLayer({
    GetWeather: ({ city }) =>
      Effect.sync(() => {
        cities.push(city)
        return `sunny in ${city}`
      }),
  })
  return { cities, layer }
}

/** The streamed parts of `LanguageModel.streamText` with `prompt`, collected. */
export const streamed = (
  model: Model,
  prompt = "Hi",
): Effect.Effect<ReadonlyArray<Response.AnyPart>, AiError.AiError> =>
  Stream.runCollect(LanguageModel.streamText({ prompt })).pipe(
    Effect.map((parts): ReadonlyArray<Response.AnyPart> => parts),
    Effect.provide(model),
  )

/** The `AiError` an effect fails with (a defect or success fails the test). */
export const aiErrorOf = (effect: Effect.Effect<unknown, unknown>): Effect.Effect<AiError.AiError> =>
  Effect.flatMap(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) return Effect.die(new Error("expected a failure, got a success"))
    const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
    const error = failure?._tag === "Fail" ? failure.error : undefined
    return AiError.isAiError(error)
      ? Effect.succeed(error)
      : Effect.die(new Error(`not an AiError: ${String(error)}`))
  })

/** The concatenated deltas of `type` (`"text-delta"` or `"reasoning-delta"`). */
export const deltas = (
  parts: ReadonlyArray<Response.AnyPart>,
  type: "text-delta" | "reasoning-delta",
): string => parts.flatMap((part) => (part.type === type ? [part.delta] : [])).join("")
