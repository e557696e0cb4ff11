// biome-ignore-all lint/suspicious/noExplicitAny: Effect's response and tool types are generic over the caller's toolkit; `any` is how Effect itself spells "any toolkit".
import { Effect } from "effect"
import type { LanguageModel, Toolkit } from "effect/ai"

/**
 * A request's `toolkit` option as the toolkit itself. The option may be an `Effect` that builds
 * the toolkit: resolve it once and hand the result on, or it runs again for every attempt (and
 * every replay).
 */
export const resolveToolkit = (
  toolkit: LanguageModel.GenerateTextOptions<any>["toolkit"],
): Effect.Effect<Toolkit.WithHandler<any> | undefined, unknown, unknown> =>
  toolkit === undefined || !Effect.isEffect(toolkit)
    ? Effect.succeed(toolkit as Toolkit.WithHandler<any> | undefined)
    : (toolkit as Effect.Effect<Toolkit.WithHandler<any>, unknown, unknown>)
