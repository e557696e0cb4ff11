/** The turn tests' tool: a `delete_file` for `runTools()` that records each path it runs for. */
import type OpenAI from "openai"
import type { ChatCompletionRunner } from "openai/lib/ChatCompletionRunner"
import type { ChatCompletionStreamingRunner } from "openai/lib/ChatCompletionStreamingRunner"
import type { RunnableToolFunctionWithParse } from "openai/lib/RunnableFunction"

/** A fresh `delete_file` tool and the paths it ran for, in order. */
export function deleteTool(): { tool: RunnableToolFunctionWithParse<{ path: string }>; ran: string[] } {
  const ran: string[] = []
  const tool: RunnableToolFunctionWithParse<{ path: string }> = {
    type: "function",
    function: {
      name: "delete_file",
      description: "Delete a file.",
      parameters: { type: "object", properties: { path: { type: "string" } } },
      parse: (text: string) => JSON.parse(text) as { path: string },
      function: ({ path }) => {
        ran.push(path)
        return `deleted ${path}`
      },
    },
  }
  return { tool, ran }
}

/** `runTools` asked to "Clean up." with `tool`, streamed or not: one user turn. */
export function cleanUp(
  client: OpenAI,
  tool: RunnableToolFunctionWithParse<{ path: string }>,
  stream: boolean,
): ChatCompletionRunner<null> | ChatCompletionStreamingRunner<null> {
  const user: OpenAI.ChatCompletionMessageParam = { role: "user", content: "Clean up." }
  return stream
    ? client.chat.completions.runTools({ model: "m", messages: [user], tools: [tool], stream: true })
    : client.chat.completions.runTools({ model: "m", messages: [user], tools: [tool] })
}
