import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager"
import { BaseChatModel } from "@langchain/core/language_models/chat_models"
import type { BaseMessage } from "@langchain/core/messages"
import { createTurnMemory, resolveRecoveryOptions } from "@tool-rescue/recovery/adapter"
import type { ToolCallRecoveryOptions } from "./options.ts"
import { type Generate, recoverGenerate } from "./recover-generate.ts"
import {
  generateFromStream,
  recoverStream,
  type StreamChunks,
  toolBlocksAfterText,
} from "./recover-stream.ts"
import type { CallOptions, RecoverySettings } from "./recovery-turn.ts"

/**
 * Wraps a LangChain chat model (any `BaseChatModel`: `ChatOpenAI`, `ChatOllama`, …) so that tool
 * calls the model writes as text are kept off the screen and recovered with one retry that asks
 * for the structured format. The result has exactly the model's own type and is still
 * `instanceof` its class; `invoke`, `stream`, `batch`, `streamEvents`, `bindTools`,
 * `withStructuredOutput` and `withConfig` keep working, and the models they return recover too.
 * The model you pass in is not modified.
 *
 * The budget is per user turn: at most `maxRecoveries` (default 1) corrected responses across the
 * model calls after the last human message (an agent's steps), read back from a mark the
 * recovered response carries in its `response_metadata`; a second malformed response rejects
 * with {@link ToolCallRecoveryError} `"repeated-markup"`. The bound holds under retries: a call
 * run again after it failed (`.withRetry()`, which retries every error, or the caller's own
 * loop) gets the same error with no request, or the budget it already spent (for a minute, by
 * the call's messages and tools; an answered call is forgotten). Streamed
 * chunks (also those LangGraph's `streamMode: "messages"` and `streamEvents` read from the
 * callbacks) never carry the markup; a retry's chunks continue the same message. Usage is summed
 * over the attempts. Aborting `signal` stops the turn: no new request starts. Calls without tools,
 * or with `tool_choice: "none"`, pass through unchanged (a `recovery-skipped` event).
 *
 * How: the wrapper is a `Proxy` that replaces the model's two primitives, `_generate` and
 * `_streamResponseChunks`, which every public method of `BaseChatModel` funnels into, and routes
 * `_streamChatModelEvents` through the recovering chunks. Methods that return a new model (as
 * `ChatOpenAI.withConfig`, and so `bindTools`, do) return it wrapped.
 *
 * @example
 * ```ts
 * import { ChatOpenAI } from "@langchain/openai"
 * import { withToolCallRecovery } from "@tool-rescue/langchain"
 *
 * const model = withToolCallRecovery(
 *   new ChatOpenAI({ model: "qwen3-coder:30b", apiKey: "ollama", configuration: { baseURL: "http://127.0.0.1:11434/v1" } }),
 * )
 * const reply = await model.bindTools([{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }]).invoke("Read a.ts")
 * reply.tool_calls // [{ name: "read_file", args: { path: "a.ts" }, … }]
 * ```
 */
export function withToolCallRecovery<Model extends BaseChatModel>(
  model: Model,
  options: ToolCallRecoveryOptions = {},
): Model {
  if (!isChatModel(model))
    throw new TypeError("tool-rescue: withToolCallRecovery needs a LangChain chat model")
  // The memory is shared by the models the wrapper returns (`bindTools`, `withConfig`): a re-run
  // through any of them is the same turn.
  return wrapChatModel(unwrapChatModel(model), {
    resolved: resolveRecoveryOptions(options),
    memory: createTurnMemory(),
  })
}

/** Wrapped model → the model it wraps. */
const wrapped = new WeakMap<object, BaseChatModel>()

/**
 * The model under a {@link withToolCallRecovery} wrapper (the model itself if it is not wrapped),
 * e.g. to call it once without recovery.
 *
 * @example
 * ```ts
 * import { ChatOpenAI } from "@langchain/openai"
 * import { unwrapChatModel, withToolCallRecovery } from "@tool-rescue/langchain"
 *
 * const raw = new ChatOpenAI({ model: "qwen3-coder", apiKey: "local" })
 * const model = withToolCallRecovery(raw)
 * unwrapChatModel(model) === raw // true
 * ```
 */
export function unwrapChatModel<Model extends BaseChatModel>(model: Model): Model {
  return (wrapped.get(model) as Model | undefined) ?? model
}

/** Internal: wraps `model` with resolved settings (shared by the models it returns). */
export function wrapChatModel<Model extends BaseChatModel>(model: Model, settings: RecoverySettings): Model {
  const target: BaseChatModel = model
  const base = BaseChatModel.prototype
  const bound = () => (target as { defaultOptions?: unknown }).defaultOptions
  // `ChatOpenAI`, `ChatOllama`, `ChatAnthropic` name it `model` (older ones `modelName`).
  const named = target as { model?: unknown; modelName?: unknown }
  const modelName = () =>
    typeof named.model === "string"
      ? named.model
      : typeof named.modelName === "string"
        ? named.modelName
        : undefined
  const generate: Generate = (messages, options, runManager) =>
    target._generate(messages, options, runManager)
  // A model without its own streaming keeps the base method: `stream` then falls back to `invoke`.
  const stream: StreamChunks | undefined =
    target._streamResponseChunks === base._streamResponseChunks
      ? undefined
      : (messages, options, runManager) => target._streamResponseChunks(messages, options, runManager)
  const hooks = new Map<PropertyKey, unknown>([
    [
      "_generate",
      (messages: BaseMessage[], options: CallOptions, runManager?: CallbackManagerForLLMRun) => {
        const call = { messages, options, bound: bound(), model: modelName() }
        // A model constructed with `streaming: true` streams inside its own `_generate` and
        // reports each token to the callbacks; muting them would take the tokens away. Its
        // `invoke` runs through the recovering stream instead, so the callbacks get the clean
        // tokens (with streaming semantics: text already reported stays in the result).
        return stream !== undefined && (target as { streaming?: unknown }).streaming === true
          ? generateFromStream(recoverStream(stream, settings, call, runManager))
          : recoverGenerate(generate, settings, call, runManager)
      },
    ],
  ])
  if (stream !== undefined) {
    hooks.set(
      "_streamResponseChunks",
      (messages: BaseMessage[], options: CallOptions, runManager?: CallbackManagerForLLMRun) =>
        recoverStream(
          stream,
          settings,
          { messages, options, bound: bound(), model: modelName() },
          runManager,
        ),
    )
    // A model's native event stream reads the provider directly: it would bypass recovery. The
    // base method derives the events from `this._streamResponseChunks`, the recovering one (it
    // exists from @langchain/core 1.3 on; before, nothing calls it).
    const events = base._streamChatModelEvents
    if (typeof events === "function") {
      hooks.set("_streamChatModelEvents", function (this: BaseChatModel, ...args: Parameters<typeof events>) {
        // The base bridge puts string content in content block 0 and a tool call at its own
        // `index` (0 for the first call): text then a call would share block 0. Tool calls move
        // one block up in this view only.
        const recovering = this._streamResponseChunks.bind(this)
        const view = Object.create(this, {
          _streamResponseChunks: {
            value: (...call: Parameters<StreamChunks>) => toolBlocksAfterText(recovering(...call)),
          },
        }) as BaseChatModel
        return events.apply(view, args)
      })
    }
  }
  const methods = new Map<PropertyKey, unknown>()
  const proxy: Model = new Proxy(model, {
    get(object, property, receiver) {
      const hook = hooks.get(property)
      if (hook !== undefined) return hook
      const value: unknown = Reflect.get(object, property, receiver)
      if (typeof value !== "function" || property === "constructor") return value
      let method = methods.get(property)
      if (method === undefined || (method as { original?: unknown }).original !== value) {
        method = rewrapping(value as (...args: unknown[]) => unknown, object, proxy, settings)
        methods.set(property, method)
      }
      return method
    },
  })
  wrapped.set(proxy, target)
  return proxy
}

/** `method`, returning any new chat model it makes (`withConfig`, `bindTools`, …) wrapped too. */
function rewrapping(
  method: (...args: unknown[]) => unknown,
  target: object,
  proxy: object,
  settings: RecoverySettings,
): (...args: unknown[]) => unknown {
  return Object.assign(
    function (this: unknown, ...args: unknown[]): unknown {
      const result = method.apply(this, args)
      if (result === target) return proxy
      return isChatModel(result) && !wrapped.has(result) ? wrapChatModel(result, settings) : result
    },
    { original: method },
  )
}

export function isChatModel(value: unknown): value is BaseChatModel {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as BaseChatModel)._generate === "function" &&
    typeof (value as BaseChatModel)._llmType === "function" &&
    typeof (value as BaseChatModel).invoke === "function"
  )
}
