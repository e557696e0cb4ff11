import type { FormatId } from "@tool-rescue/detector"
import type { FailedResponse, InstructionContext, RecoveryEvent, RecoveryOptions } from "./types.ts"

/**
 * {@link RecoveryOptions} with every default applied and every value checked.
 *
 * @example
 * ```ts
 * import { resolveRecoveryOptions, type ResolvedRecoveryOptions } from "@tool-rescue/recovery/adapter"
 *
 * const resolved: ResolvedRecoveryOptions = resolveRecoveryOptions({ maxRecoveries: 2 })
 * ```
 */
export interface ResolvedRecoveryOptions {
  readonly evidence: "structure" | "envelope"
  readonly reasoning: "auto" | "ignore" | "recover"
  readonly maxRecoveries: number
  readonly recoveryScope: "turn" | "step"
  readonly unknownToolMarkup: "ignore" | "retry"
  readonly announcedCalls: "ignore" | "retry"
  readonly instructionPlacement: "system" | "user"
  readonly instruction: string | ((context: InstructionContext) => string) | undefined
  readonly formats: readonly FormatId[] | undefined
  readonly maxHoldChars: number | undefined
  readonly persistFailed: ((failed: FailedResponse) => void | Promise<void>) | undefined
  readonly onEvent: ((event: RecoveryEvent) => void) | undefined
}

/**
 * Applies the defaults of ARCHITECTURE.md#policy and validates the options. Adapters call it once
 * when they are configured, so that a misconfiguration throws at once, not on the first turn.
 * Invalid values are API misuse and throw a `TypeError` or `RangeError`.
 *
 * @example
 * ```ts
 * import { resolveRecoveryOptions } from "@tool-rescue/recovery/adapter"
 *
 * const { maxRecoveries, instructionPlacement } = resolveRecoveryOptions({})
 * // maxRecoveries === 1, instructionPlacement === "system"
 * ```
 */
export function resolveRecoveryOptions(options: RecoveryOptions = {}): ResolvedRecoveryOptions {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`tool-rescue: options must be an object, got ${describe(options)}`)
  }
  const { evidence = "structure", reasoning = "auto", maxRecoveries = 1 } = options
  if (evidence !== "structure" && evidence !== "envelope") {
    throw new TypeError(`tool-rescue: evidence must be "structure" or "envelope", got ${describe(evidence)}`)
  }
  if (reasoning !== "auto" && reasoning !== "ignore" && reasoning !== "recover") {
    throw new TypeError(
      `tool-rescue: reasoning must be "auto", "ignore" or "recover", got ${describe(reasoning)}`,
    )
  }
  if (typeof maxRecoveries !== "number" || !Number.isInteger(maxRecoveries) || maxRecoveries < 0) {
    throw new RangeError(
      `tool-rescue: maxRecoveries must be a non-negative integer, got ${describe(maxRecoveries)}`,
    )
  }
  const { recoveryScope = "turn" } = options
  if (recoveryScope !== "turn" && recoveryScope !== "step") {
    throw new TypeError(`tool-rescue: recoveryScope must be "turn" or "step", got ${describe(recoveryScope)}`)
  }
  const { unknownToolMarkup = "ignore" } = options
  if (unknownToolMarkup !== "ignore" && unknownToolMarkup !== "retry") {
    throw new TypeError(
      `tool-rescue: unknownToolMarkup must be "ignore" or "retry", got ${describe(unknownToolMarkup)}`,
    )
  }
  const { announcedCalls = "ignore" } = options
  if (announcedCalls !== "ignore" && announcedCalls !== "retry") {
    throw new TypeError(
      `tool-rescue: announcedCalls must be "ignore" or "retry", got ${describe(announcedCalls)}`,
    )
  }
  const instructionPlacement = resolvePlacement(options)
  const { instruction, persistFailed, onEvent, formats, maxHoldChars } = options
  if (instruction !== undefined && typeof instruction !== "string" && typeof instruction !== "function") {
    throw new TypeError(
      `tool-rescue: instruction must be a string or a function, got ${describe(instruction)}`,
    )
  }
  // One check per hook, not a loop over pairs: the pairs were arrays made on every turn.
  checkHook("persistFailed", persistFailed)
  checkHook("onEvent", onEvent)
  if (formats !== undefined && !Array.isArray(formats)) {
    throw new TypeError(`tool-rescue: formats must be an array of format ids, got ${describe(formats)}`)
  }
  if (maxHoldChars !== undefined && (typeof maxHoldChars !== "number" || !(maxHoldChars > 0))) {
    throw new RangeError(`tool-rescue: maxHoldChars must be a positive number, got ${describe(maxHoldChars)}`)
  }
  return {
    evidence,
    reasoning,
    maxRecoveries,
    recoveryScope,
    unknownToolMarkup,
    announcedCalls,
    instructionPlacement,
    instruction,
    formats,
    maxHoldChars,
    persistFailed,
    onEvent,
  }
}

/**
 * Where an adapter puts the instruction of a retry:
 * - `"system"` (default): merged into the leading system message (appended to its text after a
 *   blank line), or a new system message at the start when there is none. Qwen3.5+ chat
 *   templates reject a system message that is not the first message, so never append one later.
 * - `"user"`: appended as a final user message.
 *
 * @example
 * ```ts
 * import { resolvePlacement } from "@tool-rescue/recovery/adapter"
 *
 * const placement = resolvePlacement({ instructionPlacement: "user" }) // "user"
 * ```
 */
export function resolvePlacement(
  options:
    | { readonly instructionPlacement?: RecoveryOptions["instructionPlacement"] | undefined }
    | undefined,
): "system" | "user" {
  // `=== undefined`, not `??`: a `null` is invalid, as every other option's.
  const placement = options?.instructionPlacement
  if (placement === undefined) return "system"
  if (placement !== "system" && placement !== "user") {
    throw new TypeError(
      `tool-rescue: instructionPlacement must be "system" or "user", got ${describe(placement)}`,
    )
  }
  return placement
}

function checkHook(name: "persistFailed" | "onEvent", hook: unknown): void {
  if (hook !== undefined && typeof hook !== "function") {
    throw new TypeError(`tool-rescue: ${name} must be a function, got ${describe(hook)}`)
  }
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value)
  if (typeof value === "function") return "a function"
  if (Array.isArray(value)) return "an array"
  return String(value)
}
