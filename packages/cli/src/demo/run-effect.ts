import { isToolCallRecoveryError, ToolCallRecovery } from "@tool-rescue/effect"
import { openAiCompatibleModel } from "@tool-rescue/effect-openai-compat"
import { Effect, Layer, Schema, Stream } from "effect"
import { LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import type { TurnContext, TurnOutcome } from "./demo-turn.ts"
import { demoSystemPrompt, toolDescriptions } from "./demo-world.ts"

const ReadFile = Tool.make("read_file", {
  description: toolDescriptions.read_file,
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.String,
  failure: Schema.String,
  failureMode: "return",
})

const Bash = Tool.make("bash", {
  description: toolDescriptions.bash,
  parameters: Schema.Struct({ command: Schema.String }),
  success: Schema.String,
  failure: Schema.String,
  failureMode: "return",
})

const toolkit = Toolkit.make(ReadFile, Bash)

/**
 * One agent turn with Effect 4 (`effect/ai`): an OpenAI-compatible `LanguageModel` over HTTP,
 * decorated by `ToolCallRecovery.layer`, `LanguageModel.streamText` with a toolkit whose handlers
 * Effect runs, then the tool results go back into the prompt for the answer.
 */
export async function runEffectTurn(context: TurnContext, outcome: TurnOutcome): Promise<void> {
  const Model = ToolCallRecovery.layer({
    onEvent: context.onEvent,
    persistFailed: context.persistFailed,
  }).pipe(Layer.provideMerge(openAiCompatibleModel({ baseURL: context.baseURL, model: "replay-model" })))
  const run = (name: string) => (input: unknown) =>
    Effect.flatMap(
      Effect.promise(() => context.runTool(name, input)),
      (result) => (result.ok ? Effect.succeed(result.output) : Effect.fail(result.output)),
    )
  const Handlers = toolkit.toLayer({ read_file: run("read_file"), bash: run("bash") })

  const program = Effect.gen(function* () {
    let prompt = Prompt.make([
      { role: "system", content: demoSystemPrompt },
      { role: "user", content: [{ type: "text", text: context.scenario.prompt }] },
    ])
    // An agent loop: at most one tool round in this demo, then the answer.
    for (let step = 0; step < 2; step++) {
      const parts: Response.AnyPart[] = []
      const text: string[] = []
      yield* LanguageModel.streamText({ prompt, toolkit }).pipe(
        Stream.runForEach((part) =>
          Effect.sync(() => {
            parts.push(part)
            if (part.type === "text-delta") {
              context.trace.modelText(part.delta)
              text.push(part.delta)
            }
          }),
        ),
      )
      context.trace.endModelText()
      if (!parts.some((part) => part.type === "tool-result")) {
        outcome.answer = text.join("")
        return
      }
      prompt = Prompt.concat(prompt, Prompt.fromResponseParts(parts))
    }
  })

  const exit = await Effect.runPromiseExit(program.pipe(Effect.provide(Layer.mergeAll(Model, Handlers))))
  if (exit._tag === "Success") return
  context.trace.endModelText()
  const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const error: unknown = failure?._tag === "Fail" ? failure.error : undefined
  if (error !== undefined && isToolCallRecoveryError(error)) {
    outcome.error = { code: error.reason.metadata.toolRescue?.code ?? "unknown", message: error.message }
    return
  }
  throw new Error(`the Effect turn failed: ${String(exit.cause)}`)
}
