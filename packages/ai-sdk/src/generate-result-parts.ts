import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  SharedV4ProviderMetadata,
} from "@ai-sdk/provider"

type Part = LanguageModelV4StreamPart

/**
 * A generate result as the stream the same response would have been: `stream-start`, each text
 * and reasoning content part as a one-delta block (id = its index), every other content part as
 * is (content and stream parts share those types), then `finish`. `wrapGenerate` runs this
 * through the same splice as `wrapStream`, so both paths share one behaviour.
 */
export function generateResultParts(result: LanguageModelV4GenerateResult): ReadableStream<Part> {
  const parts: Part[] = [{ type: "stream-start", warnings: result.warnings }]
  result.content.forEach((content, index) => {
    const id = String(index)
    switch (content.type) {
      case "text": {
        const { providerMetadata, citations } = content
        parts.push(
          { type: "text-start", id, ...(providerMetadata === undefined ? {} : { providerMetadata }) },
          { type: "text-delta", id, delta: content.text },
          { type: "text-end", id, ...(citations === undefined ? {} : { citations }) },
        )
        return
      }
      case "reasoning": {
        const { providerMetadata } = content
        parts.push(
          { type: "reasoning-start", id, ...(providerMetadata === undefined ? {} : { providerMetadata }) },
          { type: "reasoning-delta", id, delta: content.text },
          { type: "reasoning-end", id },
        )
        return
      }
      default:
        parts.push(content)
    }
  })
  const { finishReason, usage, providerMetadata } = result
  parts.push({
    type: "finish",
    finishReason,
    usage,
    ...(providerMetadata === undefined ? {} : { providerMetadata }),
  })
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.close()
    },
  })
}

interface TextBlock {
  readonly content: { type: "text" | "reasoning"; text: string; providerMetadata?: SharedV4ProviderMetadata }
  readonly fragments: string[]
}

/**
 * Collects a spliced stream back into a generate result. `last` is the result of the last model
 * call: its request, response metadata and warnings describe the response whose content was
 * kept. Content, finish reason, usage (summed over attempts) and provider metadata come from the
 * stream.
 */
export async function collectGenerateResult(
  stream: ReadableStream<Part>,
  last: () => LanguageModelV4GenerateResult,
): Promise<LanguageModelV4GenerateResult> {
  const content: LanguageModelV4Content[] = []
  const open = new Map<string, TextBlock>()
  const blocks: TextBlock[] = []
  let finish: Extract<Part, { type: "finish" }> | undefined
  const reader = stream.getReader()
  for (let next = await reader.read(); next.done !== true; next = await reader.read()) {
    const part = next.value
    switch (part.type) {
      case "text-start":
      case "reasoning-start": {
        const type = part.type === "text-start" ? "text" : "reasoning"
        const meta = part.providerMetadata
        const block: TextBlock = {
          content: { type, text: "", ...(meta === undefined ? {} : { providerMetadata: meta }) },
          fragments: [],
        }
        open.set(`${type}:${part.id}`, block)
        blocks.push(block)
        content.push(block.content)
        break
      }
      case "text-delta":
      case "reasoning-delta":
        open
          .get(`${part.type === "text-delta" ? "text" : "reasoning"}:${part.id}`)
          ?.fragments.push(part.delta)
        break
      case "text-end": {
        const block = open.get(`text:${part.id}`)
        open.delete(`text:${part.id}`)
        if (block !== undefined && part.citations !== undefined)
          Object.assign(block.content, { citations: part.citations })
        break
      }
      case "reasoning-end":
        open.delete(`reasoning:${part.id}`)
        break
      case "finish":
        finish = part
        break
      case "error":
        throw part.error
      case "stream-start":
      case "response-metadata":
      case "raw":
      case "ping":
      case "tool-input-start":
      case "tool-input-delta":
      case "tool-input-end":
        break
      default:
        content.push(part)
    }
  }
  for (const block of blocks) block.content.text = block.fragments.join("")
  const result = last()
  const { providerMetadata: _omit, ...rest } = result
  const providerMetadata = finish?.providerMetadata
  return {
    ...rest,
    content,
    finishReason: finish?.finishReason ?? result.finishReason,
    usage: finish?.usage ?? result.usage,
    ...(providerMetadata === undefined ? {} : { providerMetadata }),
  }
}
