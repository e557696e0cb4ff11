import { Effect, Layer, Stream } from "effect"
import { LanguageModel, type Response } from "effect/ai"

/** One scripted model response: the parts of a `generateText` call, or the chunks of a stream. */
export interface Script {
  readonly generate?: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>
  readonly stream?: ReadonlyArray<ReadonlyArray<ReadonlyArray<Response.StreamPartEncoded>>>
}

/** A scripted provider built with Effect's own `LanguageModel.make`, and the requests it received. */
export interface ScriptedModel {
  readonly layer: Layer.Layer<LanguageModel.LanguageModel>
  readonly requests: LanguageModel.ProviderOptions[]
}

/**
 * A provider whose n-th `generateText` call returns `script.generate[n]` and whose n-th
 * `streamText` call streams `script.stream[n]` chunk by chunk (a chunk is one provider event).
 * A call past the end of the script is a test bug: it dies.
 */
export function scriptedModel(script: Script): ScriptedModel {
  const requests: LanguageModel.ProviderOptions[] = []
  let generated = 0
  let streamed = 0
  const layer = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.suspend(() => {
          requests.push(options)
          const parts = script.generate?.[generated++]
          return parts === undefined
            ? Effect.die(`unscripted generateText call ${generated}`)
            : Effect.succeed([...parts])
        }),
      streamText: (options) =>
        Stream.suspend(() => {
          requests.push(options)
          const chunks = script.stream?.[streamed++]
          return chunks === undefined
            ? Stream.die(`unscripted streamText call ${streamed}`)
            : Stream.fromArrays(...chunks.map((chunk) => [...chunk]))
        }),
    }),
  )
  return { layer, requests }
}

export const finish = (reason: Response.FinishReason = "stop"): Response.FinishPartEncoded => ({
  type: "finish",
  reason,
  usage: { inputTokens: { total: 10 }, outputTokens: { total: 5 } },
})
