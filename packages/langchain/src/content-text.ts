/**
 * The text of a message's `content`, which LangChain holds either as a string or as an array of
 * content blocks (the Responses API in `ChatOpenAI`, Anthropic, `outputVersion: "v1"`): the
 * `{ type: "text", text }` blocks are the answer text recovery scans; every other block (images,
 * reasoning blocks, tool-use blocks) passes through untouched.
 */
import type { MessageContent } from "@langchain/core/messages"

/** A text content block. */
export type TextBlock = Readonly<Record<string, unknown>> & { readonly type: "text"; readonly text: string }

/** The text pieces of `content` and what is left without them. */
export interface ContentText {
  /** The text, in order: the string, or each text block with its block. */
  readonly pieces: readonly { readonly text: string; readonly block: TextBlock | undefined }[]
  /** The content without its text: `""`, or the array of the other blocks. */
  readonly rest: MessageContent
}

function isTextBlock(block: unknown): block is TextBlock {
  return (
    typeof block === "object" &&
    block !== null &&
    (block as { type?: unknown }).type === "text" &&
    typeof (block as { text?: unknown }).text === "string"
  )
}

/** Splits `content` into its text pieces and the rest. */
export function contentText(content: MessageContent): ContentText {
  if (typeof content === "string")
    return { pieces: content === "" ? [] : [{ text: content, block: undefined }], rest: "" }
  const pieces: { text: string; block: TextBlock | undefined }[] = []
  const rest: Exclude<MessageContent, string>[number][] = []
  for (const block of content) {
    if (isTextBlock(block)) {
      if (block.text !== "") pieces.push({ text: block.text, block })
    } else rest.push(block)
  }
  return { pieces, rest }
}

/** Content holding `text`: a string, or a copy of `block` (same index, same annotations) with it. */
export function textContent(text: string, block: TextBlock | undefined): MessageContent {
  return block === undefined ? text : [{ ...block, text } as Exclude<MessageContent, string>[number]]
}

/**
 * `content` with its text replaced by `text` (the visible text of a recovered result): a string
 * stays a string; in an array the first text block holds `text` (dropped when it is empty) and the
 * other text blocks go, the other blocks stay in place.
 */
export function withText(content: MessageContent, text: string): MessageContent {
  if (typeof content === "string") return text
  const out: Exclude<MessageContent, string>[number][] = []
  let placed = false
  for (const block of content) {
    if (!isTextBlock(block)) out.push(block)
    else if (!placed) {
      placed = true
      if (text !== "") out.push({ ...block, text } as Exclude<MessageContent, string>[number])
    }
  }
  return out
}
