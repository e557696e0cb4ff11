// biome-ignore-all lint/suspicious/noExplicitAny: Effect's response and tool types are generic over the caller's toolkit; `any` is how Effect itself spells "any toolkit".
import { assert, describe, it } from "@effect/vitest"
import { openAiCompatibleModel } from "@tool-rescue/effect-openai-compat"
import type { RecoveryEvent } from "@tool-rescue/recovery"
import { type ReplayScript, type ReplayServer, startReplayServer } from "@tool-rescue/testing"
import { Effect, type Layer, Ref, Schema, Stream } from "effect"
import { Chat, type LanguageModel, type Prompt, type Response, Tool, Toolkit } from "effect/ai"
import { type FailedResponse, isToolCallRecoveryError, ToolCallRecovery } from "../src/index.ts"
import { type Mode, modes } from "./support/fixtures.ts"
import { fileHandlers, files, qwenLeak } from "./support/leaks.ts"

/*
 * The turn contract (ARCHITECTURE.md#policy) through Effect's real Chat, Toolkit
 * and LanguageModel, over HTTP against the replay server.
 */

type Model = Layer.Layer<LanguageModel.LanguageModel>

const withServer = <A, E, R>(
  script: ReplayScript,
  use: (server: ReplayServer, model: Model) => Effect.Effect<A, E, R>,
) =>
  Effect.acquireUseRelease(
    Effect.promise(() => startReplayServer({ script })),
    (server) => use(server, openAiCompatibleModel({ baseURL: server.url, model: "replay" })),
    (server) => Effect.promise(() => server.close()),
  )

type Message = { readonly role: string; readonly content?: unknown; readonly tool_call_id?: string }
const messagesOf = (server: ReplayServer, index: number): Message[] =>
  (server.requests[index]?.body?.messages ?? []) as Message[]

const leak = { content: `Let me check that. ${qwenLeak}`, chunkSize: 7 }

/** A tool that deletes, so it needs the user's approval (Effect's `needsApproval`). */
const Delete = Tool.make("delete_file", {
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.String,
  needsApproval: true,
})
const guarded = Toolkit.make(Delete)

function deleteHandlers() {
  const deleted: string[] = []
  const layer = guarded.toLayer({
    delete_file: ({ path }) =>
      Effect.sync(() => {
        deleted.push(path)
        return `deleted ${path}`
      }),
  })
  return { deleted, layer }
}

/** One Chat send in `mode`; the parts the caller received. */
const send = (chat: Chat.Chat, mode: Mode, options: LanguageModel.GenerateTextOptions<any>) =>
  (mode === "generateText"
    ? Effect.map(chat.generateText(options as never), (response: LanguageModel.GenerateTextResponse<any>) => [
        ...response.content,
      ])
    : Stream.runCollect(chat.streamText(options as never))) as Effect.Effect<
    Array<Response.AllParts<any>>,
    unknown,
    LanguageModel.LanguageModel
  >

/** The text the caller received: text parts, or the deltas of a stream. */
const visibleText = (parts: ReadonlyArray<Response.AllParts<any>>): string =>
  parts
    .map((part) => (part.type === "text" ? part.text : part.type === "text-delta" ? part.delta : ""))
    .join("")

const resultsOf = (history: Prompt.Prompt, id: string) =>
  history.content.flatMap((message) =>
    message.role === "tool"
      ? message.content.filter(
          (part): part is Prompt.ToolResultPart => part.type === "tool-result" && part.id === id,
        )
      : [],
  )

/** A model call that leaks a call to the tool being approved, then the retry's clean answer. */
const approvalScript = (leaked: string): ReplayScript => [
  {
    toolCalls: [{ id: "call_del", name: "delete_file", arguments: '{"path":"/tmp/x"}' }],
    finishReason: "tool_calls",
  },
  {
    content: `Done. <function=delete_file>\n<parameter=path>\n${leaked}\n</parameter>\n</function>\n</tool_call>`,
    chunkSize: 9,
  },
  { content: "The file is gone." },
]

for (const mode of modes) {
  describe(`never repeat an action (${mode})`, () => {
    for (const [approved, options] of [
      [true, {}],
      [false, {}],
      [true, { unknownToolCalls: "return" }],
      [false, { unknownToolCalls: "return" }],
    ] as const) {
      const what = approved ? "an approved call runs once" : "a denial is given once"
      const form = "unknownToolCalls" in options ? ', with unknownToolCalls "return"' : ""
      it.effect(`${what}: a leak after it retries without resolving the approval again${form}`, () =>
        withServer(approvalScript("/tmp/x"), (server, model) =>
          Effect.gen(function* () {
            const { deleted, layer } = deleteHandlers()
            const chat = yield* Chat.empty
            const first = yield* send(chat, mode, { prompt: "Delete /tmp/x", toolkit: guarded })
            const request = first.find(
              (part): part is Response.ToolApprovalRequestPart => part.type === "tool-approval-request",
            )
            assert.isDefined(request)
            assert.deepStrictEqual(deleted, [], "nothing runs before the approval")
            const answer = yield* send(chat, mode, {
              prompt: [
                {
                  role: "tool",
                  content: [
                    {
                      type: "tool-approval-response",
                      approvalId: request!.approvalId,
                      approved,
                      ...(approved ? {} : { reason: "not now" }),
                    },
                  ],
                },
              ],
              toolkit: guarded,
            }).pipe(Effect.provide(layer))
            // The approval was resolved once: the handler ran once (or never, when denied).
            assert.deepStrictEqual(deleted, approved ? ["/tmp/x"] : [])
            assert.lengthOf(server.requests, 3, "the first call, the malformed answer, one retry")
            // The response holds one result for the call, and so does the history.
            const results = answer.filter(
              (part): part is Response.ToolResultPart<string, unknown, unknown> =>
                part.type === "tool-result" && part.id === "call_del",
            )
            assert.lengthOf(results, 1)
            assert.strictEqual(results[0]?.isFailure, !approved)
            const history = yield* Ref.get(chat.history)
            const stored = resultsOf(history, "call_del")
            assert.lengthOf(stored, 1)
            assert.strictEqual(stored[0]?.isFailure, !approved)
            // The retry was sent that result once, as the malformed attempt's request was.
            for (const index of [1, 2]) {
              const answered = messagesOf(server, index).filter(
                (message) => message.role === "tool" && message.tool_call_id === "call_del",
              )
              assert.lengthOf(answered, 1, `request ${index} answers the call once`)
            }
            assert.notInclude(JSON.stringify(messagesOf(server, 2)), "<function=")
            assert.notInclude(JSON.stringify(history), "<function=")
            // Streamed, the safe prose was shown; otherwise nothing of the malformed answer was.
            assert.strictEqual(JSON.stringify(history).includes("Done. "), mode === "streamText")
            assert.include(JSON.stringify(history), "The file is gone.")
          }).pipe(Effect.provide(ToolCallRecovery.layer(options)), Effect.provide(model)),
        ),
      )
    }
  })

  describe(`one recovery per user turn (${mode})`, () => {
    const loopScript: ReplayScript = [
      leak,
      {
        toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"src/a.ts"}' }],
        finishReason: "tool_calls",
      },
      leak,
      leak,
      { content: "It exports a function." },
    ]

    it.effect("a second leak in the agent loop ends the turn with repeated-markup and no retry request", () =>
      withServer(loopScript, (server, model) =>
        Effect.gen(function* () {
          const { read, layer } = fileHandlers()
          const chat = yield* Chat.empty
          yield* send(chat, mode, { prompt: "Read src/a.ts", toolkit: files }).pipe(Effect.provide(layer))
          assert.deepStrictEqual(read, ["src/a.ts"])
          assert.lengthOf(server.requests, 2)
          // The loop goes on with the tool result, in the same user turn: the budget is spent.
          const error = yield* send(chat, mode, { prompt: [], toolkit: files }).pipe(
            Effect.provide(layer),
            Effect.flip,
          )
          assert.isTrue(isToolCallRecoveryError(error))
          assert.strictEqual(
            isToolCallRecoveryError(error) ? error.reason.metadata.toolRescue?.code : undefined,
            "repeated-markup",
          )
          assert.lengthOf(server.requests, 3, "no retry request")
          // A new user message starts a new turn, with its own recovery.
          const answer = yield* send(chat, mode, { prompt: "Try again", toolkit: files }).pipe(
            Effect.provide(layer),
          )
          assert.lengthOf(server.requests, 5)
          assert.isTrue(answer.some((part) => part.type === "finish"))
          const history = yield* Ref.get(chat.history)
          assert.include(JSON.stringify(history), "It exports a function.")
        }).pipe(Effect.provide(ToolCallRecovery.layer()), Effect.provide(model)),
      ),
    )

    it("the error guard and FailedResponse work on what Effect hands the user (Effect.runPromise)", async () => {
      const failed: FailedResponse[] = []
      const server = await startReplayServer({ script: [leak, leak, { content: "unreachable" }] })
      try {
        const program = Effect.gen(function* () {
          const chat = yield* Chat.empty
          return yield* send(chat, mode, { prompt: "Read src/a.ts", toolkit: files })
        }).pipe(
          Effect.provide(fileHandlers().layer),
          Effect.provide(ToolCallRecovery.layer({ persistFailed: (response) => void failed.push(response) })),
          Effect.provide(openAiCompatibleModel({ baseURL: server.url, model: "replay" })),
        )
        // What a user's `try { await Effect.runPromise(...) } catch (error) {}` gets.
        const error: unknown = await Effect.runPromise(program).then(
          () => undefined,
          (rejected: unknown) => rejected,
        )
        assert.isTrue(isToolCallRecoveryError(error))
        assert.strictEqual(
          isToolCallRecoveryError(error) ? error.reason.metadata.toolRescue?.code : undefined,
          "repeated-markup",
        )
        assert.lengthOf(server.requests, 2, "one retry, no third request")
        // The hook got each malformed response as recovery's FailedResponse.
        assert.deepStrictEqual(
          failed.map(({ round, outcome, format, tools }) => ({ round, outcome, format, tools })),
          [
            { round: 0, outcome: "retried", format: "qwen3-coder", tools: ["read_file"] },
            { round: 1, outcome: "repeated", format: "qwen3-coder", tools: ["read_file"] },
          ],
        )
        assert.isTrue(failed.every((response) => response.text.includes(qwenLeak)))
      } finally {
        await server.close()
      }
    })

    it.effect('recoveryScope "step" gives every model call of the turn its own recovery', () =>
      withServer([...loopScript.slice(0, 3), { content: "It exports a function." }], (server, model) =>
        Effect.gen(function* () {
          const chat = yield* Chat.empty
          yield* send(chat, mode, { prompt: "Read src/a.ts", toolkit: files })
          yield* send(chat, mode, { prompt: [], toolkit: files })
          assert.lengthOf(server.requests, 4)
        }).pipe(
          Effect.provide(fileHandlers().layer),
          Effect.provide(ToolCallRecovery.layer({ recoveryScope: "step" })),
          Effect.provide(model),
        ),
      ),
    )

    it.effect("usage is the sum of both attempts", () =>
      withServer(
        [
          { ...leak, usage: { inputTokens: 11, outputTokens: 3 } },
          {
            toolCalls: [{ name: "read_file", arguments: '{"path":"src/a.ts"}' }],
            finishReason: "tool_calls",
            usage: { inputTokens: 13, outputTokens: 4 },
          },
        ],
        (_server, model) =>
          Effect.gen(function* () {
            const chat = yield* Chat.empty
            const parts = yield* send(chat, mode, { prompt: "Read src/a.ts", toolkit: files })
            const finish = parts.find((part): part is Response.FinishPart => part.type === "finish")
            assert.strictEqual(finish?.usage.inputTokens.total, 24)
            assert.strictEqual(finish?.usage.outputTokens.total, 7)
          }).pipe(
            Effect.provide(fileHandlers().layer),
            Effect.provide(ToolCallRecovery.layer()),
            Effect.provide(model),
          ),
      ),
    )
  })

  for (const interrupt of [
    { kind: "error", afterChunks: 12 },
    { kind: "drop", afterChunks: 12 },
    // A clean end without a finish (no finish_reason, no [DONE]; half a JSON body when not streaming).
    { kind: "end", afterChunks: 12 },
  ] as const) {
    it.effect(`a provider ${interrupt.kind} after the markup is final: no retry (${mode})`, () =>
      withServer([{ ...leak, interrupt }, { content: "unreachable" }], (server, model) =>
        Effect.gen(function* () {
          const chat = yield* Chat.empty
          const error = yield* send(chat, mode, { prompt: "Read src/a.ts", toolkit: files }).pipe(Effect.flip)
          assert.isFalse(isToolCallRecoveryError(error), "the provider's own error")
          assert.strictEqual((error as { module?: unknown }).module, "OpenAiCompatibleModel")
          assert.lengthOf(server.requests, 1)
          // Effect's Chat keeps what a failed stream had shown (the safe prose), never the markup.
          const history = yield* Ref.get(chat.history)
          if (mode === "generateText") assert.lengthOf(history.content, 0, "nothing enters the history")
          assert.notInclude(JSON.stringify(history), "<function=")
        }).pipe(
          Effect.provide(fileHandlers().layer),
          Effect.provide(ToolCallRecovery.layer()),
          Effect.provide(model),
        ),
      ),
    )
  }

  it.effect(`toolChoice "none" is not recovered: one request, the text untouched (${mode})`, () =>
    withServer([leak, { content: "unreachable" }], (server, model) =>
      Effect.gen(function* () {
        const events: RecoveryEvent[] = []
        const chat = yield* Chat.empty
        const parts = yield* send(chat, mode, {
          prompt: "Read src/a.ts",
          toolkit: files,
          toolChoice: "none",
        }).pipe(Effect.provide(ToolCallRecovery.layer({ onEvent: (event) => events.push(event) })))
        assert.lengthOf(server.requests, 1)
        assert.include(visibleText(parts), "<function=read_file>")
        assert.deepStrictEqual(events, [{ type: "recovery-skipped", reason: "tool-choice-none" }])
      }).pipe(Effect.provide(fileHandlers().layer), Effect.provide(model)),
    ),
  )
}
