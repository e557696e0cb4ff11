import { Effect } from "effect"
import type { Toolkit } from "effect/ai"
import type { AnyOptions, AnyTools } from "./untyped-model.ts"

/**
 * A request's `toolkit` option as the toolkit itself. The option may be an `Effect` that builds
 * the toolkit: resolve it once and hand the result on, or it runs again for every attempt (and
 * every replay).
 */
export const resolveToolkit = (
  toolkit: AnyOptions["toolkit"],
): Effect.Effect<Toolkit.WithHandler<AnyTools> | undefined, unknown, unknown> =>
  toolkit === undefined || !Effect.isEffect(toolkit) ? Effect.succeed(toolkit) : toolkit
