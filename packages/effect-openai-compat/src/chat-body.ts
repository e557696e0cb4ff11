/**
 * Effect's provider options → a Chat Completions request body (`POST …/chat/completions`).
 */

import { type LanguageModel, type Prompt, Tool } from "effect/ai"
import { Base64 } from "effect/encoding"

type Json = Record<string, unknown>

/**
 * The request body: the prompt as messages, the toolkit's tools as functions with their
 * `tool_choice`, the JSON schema of `generateObject`, and for a stream `stream_options` asking
 * for usage (a server that ignores it just sends none).
 */
export function chatBody(model: string, provider: LanguageModel.ProviderOptions, stream: boolean): Json {
  const body: Json = { model, messages: provider.prompt.content.flatMap(messages), stream }
  if (stream) body.stream_options = { include_usage: true }
  if (provider.tools.length > 0) {
    body.tools = provider.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: Tool.getDescription(tool),
        parameters: Tool.getJsonSchema(tool),
      },
    }))
    body.tool_choice = toolChoice(provider.toolChoice)
  }
  if (provider.responseFormat.type === "json") {
    body.response_format = {
      type: "json_schema",
      json_schema: {
        name: provider.responseFormat.objectName,
        schema: Tool.getJsonSchemaFromSchema(provider.responseFormat.schema),
      },
    }
  }
  return body
}

function toolChoice(choice: LanguageModel.ProviderOptions["toolChoice"]): unknown {
  if (typeof choice === "string") return choice
  if ("tool" in choice) return { type: "function", function: { name: choice.tool } }
  // `oneOf` has no Chat Completions form: the tools sent are already narrowed to those.
  return choice.mode ?? "auto"
}

/** A value as the text a tool message or a call's `arguments` carries. */
const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value))

function userPart(part: Prompt.UserMessagePart): Json[] {
  switch (part.type) {
    case "text":
      return [{ type: "text", text: part.text }]
    case "file": {
      if (!part.mediaType.startsWith("image/")) return []
      const url =
        part.data instanceof URL
          ? part.data.href
          : `data:${part.mediaType};base64,${typeof part.data === "string" ? part.data : Base64.encode(part.data)}`
      return [{ type: "image_url", image_url: { url } }]
    }
    default:
      return part satisfies never
  }
}

function messages(message: Prompt.Message): Json[] {
  switch (message.role) {
    case "system":
      return [{ role: "system", content: message.content }]
    case "user": {
      const parts = message.content.flatMap(userPart)
      // Plain text as a string: servers that take no content parts (older llama.cpp) read it.
      const content = parts.every((part) => part.type === "text")
        ? parts.map((part) => part.text).join("")
        : parts
      return [{ role: "user", content }]
    }
    case "assistant": {
      const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
      const calls = message.content.flatMap((part) =>
        part.type === "tool-call" && part.providerExecuted !== true
          ? [{ id: part.id, type: "function", function: { name: part.name, arguments: asText(part.params) } }]
          : [],
      )
      return [
        {
          role: "assistant",
          content: text.length === 0 ? null : text,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
      ]
    }
    case "tool":
      return message.content.flatMap((part) =>
        part.type === "tool-result"
          ? [{ role: "tool", tool_call_id: part.id, content: asText(part.result) }]
          : [],
      )
    default:
      return message satisfies never
  }
}
