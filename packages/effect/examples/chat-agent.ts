/**
 * A Chat agent on effect 4.1 with both fixes of `@tool-rescue/effect`: leaked tool calls are
 * recovered, calls to unknown tools come back as failed tool results. `test/example.test.ts`
 * runs it against the replay server; point `baseURL` at any OpenAI-compatible server (vLLM,
 * llama.cpp, Ollama) to run it for real.
 *
 * The provider is `@tool-rescue/effect-openai-compat`'s OpenAI-compatible `LanguageModel`: no
 * published Effect provider package loads with effect 4.1 yet (their newest versions import
 * `effect/unstable/*`). Any provider built on `LanguageModel.make` works the same way.
 */
import { isToolCallRecoveryError, ToolCallRecovery } from "@tool-rescue/effect"
import { openAiCompatibleModel } from "@tool-rescue/effect-openai-compat"
import { Effect, Layer, Schema } from "effect"
import { Chat, Tool, Toolkit } from "effect/ai"

const ReadFile = Tool.make("read_file", {
  description: "Read a file of the project",
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.String,
})

const toolkit = Toolkit.make(ReadFile)

const Handlers = toolkit.toLayer({ read_file: ({ path }) => Effect.succeed(`export const a = 1 // ${path}`) })

/** One user turn: the question, then the tool loop until the model answers in text. */
const turn = (chat: Chat.Chat, question: string) =>
  Effect.gen(function* () {
    let response = yield* chat.generateText({ prompt: question, toolkit })
    for (let step = 0; response.finishReason === "tool-calls" && step < 8; step++) {
      response = yield* chat.generateText({ prompt: [], toolkit })
    }
    return response.text
  })

/** Asks `question` of the model at `baseURL`; a second leak in the turn becomes a warning. */
export const ask = (baseURL: string, model: string, question: string): Effect.Effect<string> =>
  Effect.gen(function* () {
    const chat = yield* Chat.empty
    return yield* turn(chat, question)
  }).pipe(
    Effect.catchIf(isToolCallRecoveryError, (error) =>
      Effect.as(Effect.logWarning(error.message), "(the model kept writing its tool call as text)"),
    ),
    Effect.provide(
      ToolCallRecovery.layer({ unknownToolCalls: "return" }).pipe(
        Layer.provideMerge(openAiCompatibleModel({ baseURL, model })),
      ),
    ),
    Effect.provide(Handlers),
    Effect.orDie,
  )
