import { assert, describe, it } from "@effect/vitest"
import { startReplayServer } from "@tool-rescue/testing"
import { Effect } from "effect"
import { ask } from "../examples/chat-agent.ts"
import { qwenLeak } from "./support/leaks.ts"

type Message = { readonly role: string; readonly content?: unknown; readonly tool_call_id?: string }

describe("examples/chat-agent.ts (the README's example) against the replay server", () => {
  it.effect("recovers the leak, answers the unknown call, and ends the loop with the model's answer", () =>
    Effect.acquireUseRelease(
      Effect.promise(() =>
        startReplayServer({
          script: [
            { content: `Let me look. ${qwenLeak}`, chunkSize: 6 },
            {
              toolCalls: [
                { id: "c1", name: "read_file", arguments: '{"path":"src/a.ts"}' },
                { id: "c2", name: "open_editor", arguments: '{"path":"src/a.ts"}' },
              ],
              finishReason: "tool_calls",
            },
            { content: "src/a.ts exports a." },
          ],
        }),
      ),
      (server) =>
        Effect.gen(function* () {
          const answer = yield* ask(server.url, "replay", "What does src/a.ts export?")
          assert.strictEqual(answer, "src/a.ts exports a.")
          assert.lengthOf(server.requests, 3, "the leak, one retry, the loop's next step")
          const last = (server.requests[2]?.body?.messages ?? []) as Message[]
          const results = last.filter((message) => message.role === "tool")
          assert.deepStrictEqual(
            results.map((message) => message.tool_call_id),
            ["c2", "c1"],
          )
          assert.include(String(results[0]?.content), "ToolNotFoundError")
          assert.include(String(results[1]?.content), "export const a = 1")
          assert.notInclude(JSON.stringify(last), "<function=")
        }),
      (server) => Effect.promise(() => server.close()),
    ),
  )
})
