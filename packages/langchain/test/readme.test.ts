import { ChatOpenAI } from "@langchain/openai"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { createAgent, tool } from "langchain"
import { expect, test } from "vitest"
import { z } from "zod"
import { toolCallRecoveryMiddleware, withToolCallRecovery } from "../src/index.ts"
import { replay } from "./support/harness.ts"

// The README's examples, verbatim but for the base URL (the replay server) and what checks their
// results, so they cannot rot.

const leak = "<tool_call>\n<function=NAME>\n<parameter=ARG>\nVALUE\n</parameter>\n</function>\n</tool_call>"

test("README: a model", async () => {
  const server = await replay([
    { content: leak.replace("NAME", "Glob").replace("ARG", "pattern").replace("VALUE", "*.md") },
    { toolCalls: [{ name: "Glob", arguments: '{"pattern":"*.md"}' }] },
  ])
  const model = withToolCallRecovery(
    new ChatOpenAI({ model: "qwen3-coder:30b", apiKey: "ollama", configuration: { baseURL: server.url } }),
  )
  const glob = {
    type: "function" as const,
    function: { name: "Glob", parameters: { type: "object", properties: { pattern: { type: "string" } } } },
  }

  const reply = await model.bindTools([glob]).invoke("List the markdown files here.")
  expect(reply.tool_calls).toMatchObject([{ name: "Glob", args: { pattern: "*.md" } }])
})

test("README: an agent", async () => {
  const server = await replay((request) =>
    request.body?.messages?.at(-1)?.role === "tool"
      ? { content: "It exports one function." }
      : isRetryRequest(request.body)
        ? { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] }
        : { content: leak.replace("NAME", "read_file").replace("ARG", "path").replace("VALUE", "a.ts") },
  )
  const readFile = tool(async ({ path }) => `contents of ${path}`, {
    name: "read_file",
    description: "Reads a file",
    schema: z.object({ path: z.string() }),
  })
  const agent = createAgent({
    model: new ChatOpenAI({
      model: "qwen3-coder:30b",
      apiKey: "ollama",
      configuration: { baseURL: server.url },
    }),
    tools: [readFile],
    middleware: [toolCallRecoveryMiddleware()],
  })
  const { messages } = await agent.invoke({ messages: [{ role: "user", content: "Read a.ts" }] })
  expect(messages.at(-1)?.content).toBe("It exports one function.")
  expect(messages.find((message) => message.type === "tool")?.content).toBe("contents of a.ts")
})
