import { startProxyServer } from "@tool-rescue/proxy/node"
import type { TurnContext, TurnOutcome } from "./demo-turn.ts"
import { chatTools, demoSystemPrompt } from "./demo-world.ts"

interface Call {
  id: string
  name: string
  args: string
}

type Chunk = {
  error?: { code?: string; message?: string }
  choices?: Array<{
    delta?: {
      content?: string | null
      tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>
    }
  }>
}

/** The `data:` payloads of an SSE body, one event at a time (no SDK: a plain HTTP client). */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder()
  let buffer = ""
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true })
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const event = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      for (const line of event.split("\n")) if (line.startsWith("data: ")) yield line.slice(6)
    }
  }
}

/**
 * One agent turn with no SDK at all — `fetch` and a hand-written SSE reader, as an agent in any
 * language would do — through the recovery proxy (`tool-rescue serve`) in front of the replay
 * server: the proxy withholds the leak, retries, and the client only ever sees the structured
 * call.
 */
export async function runProxyTurn(context: TurnContext, outcome: TurnOutcome): Promise<void> {
  const proxy = await startProxyServer({
    upstream: context.baseURL,
    port: 0,
    graceMs: 0,
    onEvent: context.onEvent,
    persistFailed: context.persistFailed,
  })
  const messages: unknown[] = [
    { role: "system", content: demoSystemPrompt },
    { role: "user", content: context.scenario.prompt },
  ]
  try {
    for (let step = 0; step < 2; step++) {
      const response = await fetch(`${proxy.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer demo" },
        body: JSON.stringify({ model: "replay-model", messages, tools: chatTools, stream: true }),
      })
      const text: string[] = []
      const calls = new Map<number, Call>()
      for await (const data of sseData(response.body!)) {
        if (data === "[DONE]") break
        const chunk = JSON.parse(data) as Chunk
        if (chunk.error !== undefined) {
          context.trace.endModelText()
          outcome.error = { code: chunk.error.code ?? "", message: chunk.error.message ?? "" }
          return
        }
        const delta = chunk.choices?.[0]?.delta
        if (typeof delta?.content === "string" && delta.content.length > 0) {
          context.trace.modelText(delta.content)
          text.push(delta.content)
        }
        for (const call of delta?.tool_calls ?? []) {
          const draft = calls.get(call.index) ?? { id: call.id ?? "", name: "", args: "" }
          draft.name += call.function?.name ?? ""
          draft.args += call.function?.arguments ?? ""
          calls.set(call.index, draft)
        }
      }
      context.trace.endModelText()
      if (calls.size === 0) {
        outcome.answer = text.join("")
        return
      }
      const toolCalls = [...calls.values()].map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.args },
      }))
      messages.push({
        role: "assistant",
        content: text.length > 0 ? text.join("") : null,
        tool_calls: toolCalls,
      })
      for (const call of toolCalls) {
        const run = await context.runTool(call.function.name, JSON.parse(call.function.arguments))
        messages.push({ role: "tool", tool_call_id: call.id, content: run.output })
      }
    }
  } finally {
    await proxy.close()
  }
}
