import { isToolCallRecoveryError, ToolCallRecovery } from "@tool-rescue/effect"
import { openAiCompatibleModel } from "@tool-rescue/effect-openai-compat"
import { Effect, Layer, Schema } from "effect"
import { Chat, Prompt, Tool, Toolkit } from "effect/ai"
import { MAX_STEPS, systemPrompt, type TurnOutcome, type TurnRunner } from "./live-turn.ts"
import { toolSpecs } from "./live-workspace.ts"

const success = Schema.String

const toolkit = Toolkit.make(
  Tool.make("read_file", {
    description: toolSpecs.read_file.description,
    parameters: Schema.Struct({ path: Schema.String }),
    success,
  }),
  Tool.make("list_files", {
    description: toolSpecs.list_files.description,
    parameters: Schema.Struct({ path: Schema.optional(Schema.String) }),
    success,
  }),
  Tool.make("write_file", {
    description: toolSpecs.write_file.description,
    parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
    success,
  }),
)

/**
 * Effect 4's agent loop: a `Chat` over the OpenAI-compatible `LanguageModel` decorated by
 * `ToolCallRecovery.layer`; `chat.generateText` with the toolkit (Effect runs the handlers), then
 * again with an empty prompt while the model calls tools.
 */
export const runEffect: TurnRunner = async ({ target, task, tools, onEvent, signal }) => {
  const Model = ToolCallRecovery.layer({ onEvent }).pipe(
    Layer.provideMerge(
      openAiCompatibleModel({ baseURL: target.baseURL, model: target.model, apiKey: target.apiKey }),
    ),
  )
  const run = (name: string) => (input: unknown) => Effect.promise(() => tools.run(name, input))
  const Handlers = toolkit.toLayer({
    read_file: run("read_file"),
    list_files: run("list_files"),
    write_file: run("write_file"),
  })
  const program = Effect.gen(function* () {
    const chat = yield* Chat.fromPrompt(Prompt.make([{ role: "system", content: systemPrompt }]))
    let response = yield* chat.generateText({ prompt: task.prompt, toolkit })
    for (let step = 1; step < MAX_STEPS && response.toolCalls.length > 0; step++) {
      response = yield* chat.generateText({ prompt: [], toolkit })
    }
    return response.text
  })
  const exit = await Effect.runPromiseExit(program.pipe(Effect.provide(Layer.mergeAll(Model, Handlers))), {
    signal,
  })
  if (exit._tag === "Success") return { answer: exit.value }
  const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const error: unknown = failure?._tag === "Fail" ? failure.error : undefined
  if (error !== undefined && isToolCallRecoveryError(error)) {
    const outcome: TurnOutcome = {
      error: { code: error.reason.metadata.toolRescue?.code ?? "unknown", message: error.message },
    }
    return outcome
  }
  throw new Error(`the Effect turn failed: ${String(exit.cause)}`)
}
