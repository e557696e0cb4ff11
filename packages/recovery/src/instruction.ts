import { suggestToolNames } from "./suggest-tool-names.ts"
import type { InstructionContext, RecoveryOptions } from "./types.ts"

/**
 * The sentence every default instruction ends with, and so the mark a retry request carries on
 * the wire: {@link isRetryRequest} looks for it. One constant, so rewording the instruction
 * cannot leave the recognition behind.
 */
const RETRY_MARK =
  "Tool results already present in the conversation are complete: do not repeat those actions."

/**
 * The default host instruction of a retry. It says that no action occurred, asks for the
 * structured tool-call format, and says that tool results already in the conversation are
 * complete and must not be repeated (so a model that already ran a tool does not run it twice).
 * A call cut off by the output limit (`context.truncated`) gets its own text: it asks for concise
 * arguments or smaller steps instead. A call to a tool that is not offered (retried under
 * `unknownToolMarkup: "retry"`) names it, the closest offered names and the offered list.
 *
 * @example
 * ```ts
 * import { defaultInstruction } from "@tool-rescue/recovery"
 *
 * const text = defaultInstruction({ round: 1, markup: [], tools: ["read_file"] })
 * ```
 */
export function defaultInstruction(context: InstructionContext): string {
  const shown = shownSentence(context.shown)
  const named = markupNames(context, true)
  const what = named.length === 0 ? "a tool call" : `a call to ${named.join(", ")}`
  if (context.announced !== undefined) {
    const name = JSON.stringify(context.announced)
    return (
      `Your previous response said you would call ${name}, but no call was made: no tool was run and that response was discarded. ` +
      `Call ${name} with the structured tool-call format (the tool-calling interface), or answer without it. ` +
      shown +
      RETRY_MARK
    )
  }
  // Only unknown names (retried under `unknownToolMarkup: "retry"`): say that the tool does not exist.
  const unknown = named.length === 0 ? markupNames(context, false) : []
  if (unknown.length > 0) {
    const [name] = unknown
    const near = suggestToolNames(name!, context.tools)
    const didYouMean =
      near.length === 0 ? "" : ` Did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?`
    const available =
      context.tools.length === 0
        ? "No tools are available."
        : `The available tools are: ${context.tools.join(", ")}.`
    return (
      `Your previous response wrote a call to ${JSON.stringify(name)} as plain text, and no tool named ${JSON.stringify(name)} exists.${didYouMean} ${available} ` +
      "No action occurred: no tool was run and that response was discarded. " +
      "If you need a tool, call one of the available tools with the structured tool-call format, or answer without a tool. " +
      shown +
      RETRY_MARK
    )
  }
  if (context.truncated === true) {
    return (
      `Your previous response was cut off by the output limit in the middle of ${what}. ` +
      "No action occurred: no tool was run and that response was discarded. " +
      "Call the tool again with the structured tool-call format and concise arguments; " +
      "split large content into several smaller steps or calls. " +
      shown +
      RETRY_MARK
    )
  }
  return (
    `Your previous response wrote ${what} as plain text instead of a structured tool call. ` +
    "No action occurred: no tool was run and that response was discarded. " +
    "If you need a tool, call it with the structured tool-call format (the tool-calling interface), " +
    "not as text, XML, JSON or special tokens in your message. " +
    shown +
    RETRY_MARK
  )
}

/**
 * The sentence that tells the model what the user already saw of the discarded response (a
 * stream showed it at once): quoted, so that the retry continues after it rather than repeats
 * it. Empty when nothing was shown.
 */
function shownSentence(shown: string | undefined): string {
  if (shown === undefined || shown.trim().length === 0) return ""
  return (
    `The user already saw the text before that call: ${JSON.stringify(shown)}. ` +
    "Continue after it without repeating it. "
  )
}

/**
 * The instruction text of a retry: `options.instruction` (a string, or a function of the
 * context) or {@link defaultInstruction}. Adapters place the result per
 * {@link resolvePlacement}. A function that throws or returns a non-string is API misuse: it
 * throws a `TypeError`.
 *
 * @example
 * ```ts
 * import { resolveInstruction } from "./instruction.ts"
 *
 * const text = resolveInstruction({ instruction: (c) => `Retry ${c.round}: use real tool calls.` }, {
 *   round: 1,
 *   markup: [],
 *   tools: ["bash"],
 * })
 * // "Retry 1: use real tool calls."
 * ```
 */
export function resolveInstruction(
  options: { readonly instruction?: RecoveryOptions["instruction"] | undefined } | undefined,
  context: InstructionContext,
): string {
  const instruction = options?.instruction
  if (instruction === undefined) return defaultInstruction(context)
  if (typeof instruction === "string") return instruction
  const text: unknown = instruction(context)
  if (typeof text !== "string") {
    throw new TypeError(`tool-rescue: the instruction function must return a string, got ${typeof text}`)
  }
  return text
}

/**
 * Appends the instruction to the text of an existing system message (or Responses
 * `instructions`), after a blank line; an empty text becomes the instruction alone. Adapters use
 * it for placement `"system"`, so every adapter sends the same merged text.
 *
 * @example
 * ```ts
 * import { appendInstruction } from "@tool-rescue/recovery/adapter"
 *
 * appendInstruction("You are a coding agent.", "Use real tool calls.")
 * // "You are a coding agent.\n\nUse real tool calls."
 * appendInstruction("", "Use real tool calls.") // "Use real tool calls."
 * ```
 */
export function appendInstruction(text: string, instruction: string): string {
  return text.length === 0 ? instruction : `${text}\n\n${instruction}`
}

/**
 * The tool names of the markup, each once, in order: the offered ones, or (`offered: false`)
 * those not offered (retried only under `unknownToolMarkup: "retry"`).
 */
function markupNames(context: InstructionContext, offered: boolean): string[] {
  const names: string[] = []
  for (const m of context.markup) {
    if (
      m.toolName !== undefined &&
      context.tools.includes(m.toolName) === offered &&
      !names.includes(m.toolName)
    ) {
      names.push(m.toolName)
    }
  }
  return names
}

/**
 * Whether a request is a retry that carries the default instruction: `request` is anything the
 * request's text is in — a body as sent (`rawBody`), a parsed body or message list (searched as
 * JSON), or one message's text. The mark is the closing sentence every variant of
 * {@link defaultInstruction} ends with, really sent to the model, so a test double or a scripted
 * server tells a retry from a first request by what is on the wire, not by the instruction's
 * wording. A custom `instruction` option replaces the text and its mark: recognise it by its
 * own text.
 *
 * @example
 * ```ts
 * import { defaultInstruction } from "@tool-rescue/recovery"
 * import { isRetryRequest } from "@tool-rescue/recovery/adapter"
 *
 * const instruction = defaultInstruction({ round: 1, markup: [], tools: ["read_file"] })
 * isRetryRequest({ messages: [{ role: "system", content: instruction }] }) // true
 * isRetryRequest("What is on port 8080?") // false
 * ```
 */
export function isRetryRequest(request: unknown): boolean {
  // The mark holds no character JSON escapes, so it reads the same in a serialized body.
  const text = typeof request === "string" ? request : (JSON.stringify(request) ?? "")
  return text.includes(RETRY_MARK)
}
