/**
 * The HTTP tests' model: `@ai-sdk/openai-compatible` (with usage) against a replay server of
 * `@tool-rescue/testing`, the server closed after its test.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { type ReplayServer, type ReplayStep, startReplayServer } from "@tool-rescue/testing"
import { afterEach } from "vitest"

/** The provider's chat model, as the tests wrap it. */
type ChatModel = ReturnType<ReturnType<typeof createOpenAICompatible>["chatModel"]>

/** A started replay server and the chat model that calls it. */
export interface ReplayChatModel {
  readonly server: ReplayServer
  readonly model: ChatModel
}

/** Registers the closing of every server it starts; returns what starts one per call. */
export function replayChatModels(): (script: readonly ReplayStep[]) => Promise<ReplayChatModel> {
  const servers: ReplayServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })
  return async (script: readonly ReplayStep[]) => {
    const server = await startReplayServer({ script })
    servers.push(server)
    const provider = createOpenAICompatible({
      name: "replay",
      baseURL: server.url,
      apiKey: "test",
      includeUsage: true,
    })
    return { server, model: provider.chatModel("qwen3-coder") }
  }
}
