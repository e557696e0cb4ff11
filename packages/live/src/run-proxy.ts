import { startProxyServer } from "@tool-rescue/proxy/node"
import OpenAI from "openai"
import type { TurnRunner } from "./live-turn.ts"
import { runToolsTurn } from "./run-openai.ts"

/**
 * The recovery proxy (`startProxyServer`, as `tool-rescue serve` runs it) in front of the live
 * endpoint, and a plain `openai` client's `runTools` through it: the client has no tool-rescue
 * code, the proxy withholds a leak and retries.
 */
export const runProxy: TurnRunner = async (context) => {
  const proxy = await startProxyServer({
    upstream: context.target.baseURL,
    port: 0,
    graceMs: 0,
    onEvent: context.onEvent,
  })
  try {
    const client = new OpenAI({ baseURL: proxy.url, apiKey: context.target.apiKey, maxRetries: 0 })
    return await runToolsTurn(client, context)
  } finally {
    await proxy.close()
  }
}
