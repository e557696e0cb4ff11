/**
 * Builders for scripted V4 model responses, shared by the tests. Each builder returns a fresh
 * stream (a ReadableStream is read once).
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from "@ai-sdk/provider"
import { convertArrayToReadableStream, convertReadableStreamToArray, MockLanguageModelV4 } from "ai/test"

export type Part = LanguageModelV4StreamPart

export function usage(input: number, output: number): LanguageModelV4Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  }
}

function finish(unified: LanguageModelV4FinishReason["unified"], tokens: LanguageModelV4Usage): Part {
  return { type: "finish", finishReason: { unified, raw: unified }, usage: tokens }
}

/** One scripted response, as stream parts. */
export interface Reply {
  /** Text deltas (one text block, id `txt-0`). */
  readonly text?: readonly string[]
  /** Reasoning deltas (one reasoning block before the text, id `reasoning-0`). */
  readonly reasoning?: readonly string[]
  /** Structured tool calls after the text. */
  readonly calls?: ReadonlyArray<{ readonly toolName: string; readonly input: unknown; readonly id?: string }>
  readonly usage?: LanguageModelV4Usage
  /** Response id in `response-metadata`. */
  readonly responseId?: string
}

export function replyParts(reply: Reply): Part[] {
  const parts: Part[] = [
    { type: "stream-start", warnings: [] },
    {
      type: "response-metadata",
      id: reply.responseId ?? "resp-0",
      modelId: "mock-model-id",
      timestamp: new Date(0),
    },
  ]
  if (reply.reasoning !== undefined) {
    parts.push({ type: "reasoning-start", id: "reasoning-0" })
    for (const delta of reply.reasoning) parts.push({ type: "reasoning-delta", id: "reasoning-0", delta })
    parts.push({ type: "reasoning-end", id: "reasoning-0" })
  }
  if (reply.text !== undefined) {
    parts.push({ type: "text-start", id: "txt-0" })
    for (const delta of reply.text) parts.push({ type: "text-delta", id: "txt-0", delta })
    parts.push({ type: "text-end", id: "txt-0" })
  }
  for (const [index, call] of (reply.calls ?? []).entries()) {
    const id = call.id ?? `call-${reply.responseId ?? "0"}-${index}`
    const input = JSON.stringify(call.input)
    parts.push(
      { type: "tool-input-start", id, toolName: call.toolName },
      { type: "tool-input-delta", id, delta: input },
      { type: "tool-input-end", id },
      { type: "tool-call", toolCallId: id, toolName: call.toolName, input },
    )
  }
  parts.push(finish((reply.calls?.length ?? 0) > 0 ? "tool-calls" : "stop", reply.usage ?? usage(10, 5)))
  return parts
}

export function streamReply(reply: Reply): LanguageModelV4StreamResult {
  return { stream: convertArrayToReadableStream(replyParts(reply)) }
}

export function generateReply(reply: Reply): LanguageModelV4GenerateResult {
  const content: LanguageModelV4GenerateResult["content"] = []
  if (reply.reasoning !== undefined) content.push({ type: "reasoning", text: reply.reasoning.join("") })
  if (reply.text !== undefined) content.push({ type: "text", text: reply.text.join("") })
  for (const [index, call] of (reply.calls ?? []).entries()) {
    content.push({
      type: "tool-call",
      toolCallId: call.id ?? `call-${reply.responseId ?? "0"}-${index}`,
      toolName: call.toolName,
      input: JSON.stringify(call.input),
    })
  }
  const calls = (reply.calls?.length ?? 0) > 0
  return {
    content,
    finishReason: { unified: calls ? "tool-calls" : "stop", raw: calls ? "tool-calls" : "stop" },
    usage: reply.usage ?? usage(10, 5),
    warnings: [],
    response: { id: reply.responseId ?? "resp-0", modelId: "mock-model-id", timestamp: new Date(0) },
  }
}

/**
 * A mock model answering the n-th call with `replies[n]` (streaming and generating alike). Calls
 * beyond the script fail the test loudly.
 */
export function scriptedModel(replies: readonly Reply[]): MockLanguageModelV4 {
  let streamed = 0
  let generated = 0
  const next = (n: number): Reply => {
    const reply = replies[n]
    if (reply === undefined) throw new Error(`unexpected model call #${n + 1} (script has ${replies.length})`)
    return reply
  }
  return new MockLanguageModelV4({
    doStream: async () => streamReply(next(streamed++)),
    doGenerate: async () => generateReply(next(generated++)),
  })
}

/** All text of a prompt (system, user, assistant and tool messages), for "no markup sent" checks. */
export function promptText(prompt: LanguageModelV4Prompt): string {
  return JSON.stringify(prompt)
}

/** The system message text of a call, if the first message is one. */
export function systemText(call: LanguageModelV4CallOptions | undefined): string | undefined {
  const first = call?.prompt[0]
  return first?.role === "system" ? first.content : undefined
}

export async function readAll(result: LanguageModelV4StreamResult): Promise<Part[]> {
  return convertReadableStreamToArray(result.stream)
}

/** The Qwen3-Coder leak of corpus sample L1 (ollama/ollama#16686), tools Glob/Read/Bash. */
export const QWEN_PROSE = "I'll use the Glob tool to list all markdown files in the current directory.\n\n"
export const QWEN_MARKUP =
  "<function=Glob>\n<parameter=pattern>\n*.md\n</parameter>\n</function>\n</tool_call>"
export const QWEN_LEAK: string = QWEN_PROSE + QWEN_MARKUP

/** Splits `text` into pieces of `size` UTF-16 units. */
export function chunk(text: string, size: number): string[] {
  const pieces: string[] = []
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size))
  return pieces
}

/** Strings that must never reach the screen when a leak is withheld. */
export const MARKUP_FRAGMENTS: readonly string[] = [
  "<function=",
  "<parameter=",
  "</function>",
  "</tool_call>",
  "<tool_call>",
]

/**
 * Problems with the framing of a V4 stream, as a list (empty = well-formed): deltas inside their
 * block, blocks closed, `stream-start` first, exactly one `finish`, nothing after it. With
 * `allowReuse`, an id may start a new block after its previous block ended (openai-compatible
 * does that with `txt-0`).
 */
export function wellFormed(
  parts: readonly Part[],
  options: { readonly allowReuse?: boolean } = {},
): string[] {
  const problems: string[] = []
  const open = new Set<string>()
  const seen = new Set<string>()
  let finishes = 0
  for (const [i, part] of parts.entries()) {
    if (finishes > 0) problems.push(`part ${i} (${part.type}) after finish`)
    switch (part.type) {
      case "text-start":
      case "reasoning-start": {
        const key = `${part.type.split("-")[0]}:${part.id}`
        if (open.has(key)) problems.push(`${key} started twice`)
        if (seen.has(key) && options.allowReuse !== true) problems.push(`${key} reused`)
        open.add(key)
        seen.add(key)
        break
      }
      case "text-delta":
      case "reasoning-delta": {
        const key = `${part.type.split("-")[0]}:${part.id}`
        if (!open.has(key)) problems.push(`${key} delta outside its block`)
        break
      }
      case "text-end":
      case "reasoning-end": {
        const key = `${part.type.split("-")[0]}:${part.id}`
        if (!open.delete(key)) problems.push(`${key} ended while not open`)
        break
      }
      case "stream-start":
        if (i !== 0) problems.push(`stream-start at ${i}`)
        break
      case "finish":
        finishes++
        break
    }
  }
  if (open.size > 0) problems.push(`unclosed: ${[...open].join(", ")}`)
  if (finishes !== 1) problems.push(`${finishes} finish parts`)
  return problems
}
