/**
 * The turn mark as metadata: a part of a recovered response carries
 * `{ toolRescue: { recoveries } }` (the recoveries its user turn had made) in its framework's
 * metadata — the AI SDK's provider metadata, Effect's part options, LangChain's
 * `response_metadata`. The framework keeps that metadata with the history, so the next model call
 * of the turn reads the mark back ({@link turnMarkOf}, per message of `turnRecoveries`) and no
 * state is kept between calls. Providers read only their own key, so the mark never reaches a
 * model. A framework whose history keeps no metadata marks something else it sends back (the
 * `openai` adapter: the tool-call ids).
 */
const KEY = "toolRescue"

/**
 * The metadata entry of the turn mark.
 *
 * @example
 * ```ts
 * import type { TurnMark } from "@tool-rescue/recovery/adapter"
 *
 * const entry: TurnMark = { toolRescue: { recoveries: 1 } }
 * ```
 */
export type TurnMark = { readonly toolRescue: { readonly recoveries: number } }

/**
 * `metadata` with the turn mark: the turn had made `recoveries` recoveries by this response.
 * Every other key is kept.
 *
 * @example
 * ```ts
 * import { withTurnMark } from "@tool-rescue/recovery/adapter"
 *
 * withTurnMark({ openai: { itemId: "msg_1" } }, 1)
 * // { openai: { itemId: "msg_1" }, toolRescue: { recoveries: 1 } }
 * ```
 */
export function withTurnMark<Metadata extends object>(
  metadata: Metadata | undefined,
  recoveries: number,
): Metadata & TurnMark {
  // No metadata is an empty `Metadata` to TypeScript only through a cast: the spread of
  // `Metadata | undefined` is typed without `Metadata`.
  return { ...metadata, [KEY]: { recoveries } } as Metadata & TurnMark
}

/**
 * The recoveries a metadata record's turn mark says: 0 when it has none, or one that is not a
 * count (a positive integer). Metadata comes back from outside, so nothing about its shape is
 * assumed, and a message's parts can be folded with `Math.max` without a `NaN` poisoning it.
 *
 * @example
 * ```ts
 * import { turnMarkOf } from "@tool-rescue/recovery/adapter"
 *
 * turnMarkOf({ toolRescue: { recoveries: 1 } }) // 1
 * turnMarkOf({ openai: {} }) // 0
 * turnMarkOf(undefined) // 0
 * ```
 */
export function turnMarkOf(metadata: unknown): number {
  if (typeof metadata !== "object" || metadata === null) return 0
  const mark: unknown = (metadata as Record<string, unknown>)[KEY]
  if (typeof mark !== "object" || mark === null) return 0
  const recoveries: unknown = (mark as Record<string, unknown>).recoveries
  return typeof recoveries === "number" && Number.isInteger(recoveries) && recoveries > 0 ? recoveries : 0
}
