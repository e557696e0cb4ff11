import type { Markup, Policy } from "@tool-rescue/detector"

/**
 * Why one markup does or does not make tool-rescue retry, on every `markup-detected` event and
 * in every {@link Judgement}. `"recoverable"` is the only reason a retry is spent on.
 *
 * Reasons of the markup itself, in the order the policy checks them (ARCHITECTURE.md#policy):
 * - `unnamed`: no tool name could be read from it;
 * - `not-offered`: it names a tool that was not offered in this request;
 * - `no-envelope`: `evidence: "envelope"` and neither an opening nor a closing marker;
 * - `no-structure`: neither an envelope marker nor inner call structure (a bare header);
 * - `in-reasoning`: inside reasoning under `reasoning: "ignore"`;
 * - `in-reasoning-answer-follows`: inside reasoning and a visible answer follows it (a rehearsal,
 *   under `reasoning: "auto"`).
 *
 * Reasons of the response it is in, for markup that would otherwise be recoverable:
 * - `structured-call`: the response also holds a structured tool call;
 * - `provider-error`: the attempt ended in a provider error, a malformed stream or a cut
 *   connection (provider errors are final: never retried).
 *
 * And one that spends a retry like `"recoverable"`, only under `unknownToolMarkup: "retry"`:
 * - `unknown-tool`: it would be recoverable but names a tool that is not offered.
 *
 * @example
 * ```ts
 * import type { MarkupReason } from "@tool-rescue/recovery"
 *
 * const label = (reason: MarkupReason): string => (reason === "recoverable" ? "retry" : `kept: ${reason}`)
 * ```
 */
export type MarkupReason =
  | "recoverable"
  | "unknown-tool"
  | "unnamed"
  | "not-offered"
  | "no-envelope"
  | "no-structure"
  | "in-reasoning"
  | "in-reasoning-answer-follows"
  | "structured-call"
  | "provider-error"

/**
 * What the response that holds a markup says about it (see {@link markupReason}).
 *
 * @example
 * ```ts
 * import type { ResponseFacts } from "./markup-reason.ts"
 *
 * const facts: ResponseFacts = { structuredCall: true, failed: false }
 * ```
 */
export interface ResponseFacts {
  /** The response holds a structured tool call. */
  readonly structuredCall: boolean
  /** The attempt ended in a provider error (an error part, a malformed or cut stream). */
  readonly failed: boolean
}

const CLEAN: ResponseFacts = { structuredCall: false, failed: false }

/**
 * The one judgement of a markup under the policy: `"recoverable"` exactly when
 * `isRecoverable(markup, policy)` of `@tool-rescue/detector` holds and the response neither
 * holds a structured call nor failed; otherwise the first reason that rules it out (see
 * {@link MarkupReason}). `runTurn` and {@link createResponseJudge} (the CLI's `scan`) both call
 * it, so a reason printed by `scan` is the reason the adapters acted on.
 *
 * @example
 * ```ts
 * import { scan } from "@tool-rescue/detector"
 * import { markupReason } from "./markup-reason.ts"
 *
 * const text = '<tool_call>\n{"name": "rm", "arguments": {}}\n</tool_call>'
 * const [markup] = scan(text, { tools: ["read_file"] }).markup
 * if (markup !== undefined) markupReason(markup, {}) // "not-offered"
 * ```
 */
export function markupReason(markup: Markup, policy: Policy, response: ResponseFacts = CLEAN): MarkupReason {
  const own = ownReason(markup, policy)
  if (own !== "recoverable") return own
  if (response.failed) return "provider-error"
  if (response.structuredCall) return "structured-call"
  return own
}

function ownReason(markup: Markup, policy: Policy): MarkupReason {
  if (markup.toolName === undefined) return "unnamed"
  if (!markup.offered) return "not-offered"
  const evidence = policy.evidence ?? "structure"
  if (!(markup.opening || markup.closing)) {
    if (evidence === "envelope") return "no-envelope"
    if (!markup.structured) return "no-structure"
  }
  if (!markup.inReasoning) return "recoverable"
  const reasoning = policy.reasoning ?? "auto"
  switch (reasoning) {
    case "recover":
      return "recoverable"
    case "ignore":
      return "in-reasoning"
    case "auto":
      return markup.answerFollows ? "in-reasoning-answer-follows" : "recoverable"
    default:
      return reasoning satisfies never
  }
}
