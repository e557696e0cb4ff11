import type { UnknownToolCalls } from "@tool-rescue/recovery"
import { createTurnMemory, resolveRecoveryOptions, type TurnMemory } from "@tool-rescue/recovery/adapter"
import { chatCompletions, responses as responsesWire } from "@tool-rescue/wire"
import type { OpenAIClientLike, RecoveringClient } from "./client-types.ts"
import type { ToolCallRecoveryOptions } from "./options.ts"
import { type CreateSettings, recoveringCreate } from "./recovering-create.ts"
import { createRecoveredCalls, type RecoveredCalls } from "./turn-mark.ts"

/** Wrapped client → the real client it wraps, so that wrapping twice replaces, never stacks. */
const realClients = new WeakMap<object, object>()
/**
 * What a wrapped client shares with the clients its `withOptions()` derives: a turn may continue,
 * or be re-run, on a derived client.
 */
interface Lineage {
  /** The marks of its recovered calls. */
  readonly calls: RecoveredCalls
  /** The turns it ended without an answer. */
  readonly memory: TurnMemory
}

/** A client `withOptions()` derived → the lineage of the wrapped client it came from. */
const lineages = new WeakMap<object, Lineage>()

type AnyFunction = (...args: unknown[]) => unknown

function settingsOf(
  options: Omit<ToolCallRecoveryOptions, "unknownToolCalls"> & { readonly unknownToolCalls?: unknown },
  { calls, memory }: Lineage,
): CreateSettings {
  const { unknownToolCalls = "error", ...recovery } = options
  if (unknownToolCalls !== "error" && unknownToolCalls !== "return") {
    throw new TypeError(
      `tool-rescue: unknownToolCalls must be "error" or "return", got ${String(unknownToolCalls)}`,
    )
  }
  // Validated now, so that a misconfiguration throws here and not on the first request.
  const resolved = resolveRecoveryOptions(recovery)
  return { resolved, returnToolCallErrors: unknownToolCalls === "return", calls, memory }
}

/**
 * A view of an SDK resource: it inherits every method and sub-resource of the real one, with its
 * own `create` (when given) and a `_client` pointing at the wrapped client. The SDK's helpers
 * (`stream()`, `runTools()`, `parse()`, `responses.stream()`) call
 * `this._client.chat.completions.create` / `this._client.responses.create`, so they go through
 * recovery too.
 */
function view(real: object, own: Record<string, unknown>, client: object): object {
  const properties: PropertyDescriptorMap = {
    _client: { value: client, writable: true, configurable: true, enumerable: false },
  }
  for (const [key, value] of Object.entries(own)) {
    properties[key] = { value, writable: true, configurable: true, enumerable: true }
  }
  return Object.create(real, properties)
}

/**
 * Wraps an `openai` client so that a tool call the model wrote as text is recovered: the markup
 * is kept off the screen, and the request is retried once with an instruction to use the
 * structured tool-call format. The client passed in is not changed; the value returned has
 * exactly its type (unless `unknownToolCalls: "return"` adds `tool_call_errors` to results) and
 * is still `instanceof OpenAI`.
 *
 * Covered: `chat.completions.create` and `responses.create`, streaming and not, and every helper
 * built on them (`chat.completions.stream()`, `.runTools()`, `.parse()`, `responses.stream()`,
 * `responses.parse()`); `withOptions()` returns a wrapped client. `.withResponse()` reports the
 * first HTTP attempt's `response` and `request_id` with the recovered `data`; `.asResponse()` is
 * the raw first response, before recovery.
 *
 * A second malformed response throws a `ToolCallRecoveryError` (`code: "repeated-markup"`) from
 * the stream's iterator or rejects the promise. Provider errors pass through unchanged and are
 * never retried by the wrapper (the client's own `maxRetries` resends a failed request as it
 * would without it: a failed retry request is resent as it is, never the first one); aborting
 * (`signal`, `stream.controller.abort()`, `break`) never retries. The bound holds under a
 * caller's own retries: a request sent again after it failed gets the same error with no
 * request, or the budget it already spent (for a minute, by its conversation and tools; an
 * answered request is forgotten).
 *
 * Recovery is skipped, with a `recovery-skipped` event, for requests without function/custom
 * tools, with `tool_choice: "none"`, chat `n > 1`, and Responses `background: true` or
 * `conversation`.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { withToolCallRecovery } from "@tool-rescue/openai"
 *
 * // vLLM, llama.cpp, Ollama, LM Studio: any OpenAI-compatible server.
 * const client = withToolCallRecovery(new OpenAI({ baseURL: "http://127.0.0.1:11434/v1", apiKey: "ollama" }))
 *
 * const completion = await client.chat.completions.create({
 *   model: "qwen3-coder:30b",
 *   messages: [{ role: "user", content: "List the markdown files." }],
 *   tools: [{ type: "function", function: { name: "Glob", parameters: { type: "object", properties: { pattern: { type: "string" } } } } }],
 * })
 * console.log(completion.choices[0]?.message.tool_calls)
 * ```
 */
export function withToolCallRecovery<
  C extends OpenAIClientLike,
  const Mode extends UnknownToolCalls | undefined = undefined,
>(
  client: C,
  options?: Omit<ToolCallRecoveryOptions, "unknownToolCalls"> & { readonly unknownToolCalls?: Mode },
): RecoveringClient<C, Mode> {
  if (
    typeof client !== "object" ||
    client === null ||
    typeof client.chat?.completions?.create !== "function"
  ) {
    throw new TypeError("tool-rescue: withToolCallRecovery needs an openai client")
  }
  const target = (realClients.get(client) ?? client) as C & Record<PropertyKey, unknown>
  const lineage = lineages.get(client) ?? { calls: createRecoveredCalls(), memory: createTurnMemory() }
  const settings = settingsOf(options ?? {}, lineage)
  const bound = new WeakMap<AnyFunction, AnyFunction>()
  const views = new Map<string, object>()

  const proxy: C = new Proxy(target, {
    get(real, property) {
      switch (property) {
        case "chat":
          return chatView()
        case "responses":
          return real.responses === undefined || real.responses === null ? real.responses : responsesView()
        case "withOptions": {
          const withOptions = real.withOptions
          if (typeof withOptions !== "function") return withOptions
          return (clientOptions: unknown) => {
            const derived = Reflect.apply(withOptions, real, [clientOptions]) as C
            lineages.set(derived, lineage)
            return withToolCallRecovery(derived, options)
          }
        }
        case "constructor":
          return Reflect.get(real, property, real)
        default: {
          // Methods run on the real client: `#private` members are only reachable through it.
          const value = Reflect.get(real, property, real) as unknown
          if (typeof value !== "function") return value
          let fn = bound.get(value as AnyFunction)
          if (fn === undefined) {
            fn = (value as AnyFunction).bind(real)
            bound.set(value as AnyFunction, fn)
          }
          return fn
        }
      }
    },
  })

  function chatView(): object {
    let chat = views.get("chat")
    if (chat === undefined) {
      const realChat = target.chat as object
      const realCompletions = target.chat.completions as object
      const completions = view(
        realCompletions,
        { create: recoveringCreate(chatCompletions, realCompletions, target, settings) },
        proxy,
      )
      chat = view(realChat, { completions }, proxy)
      views.set("chat", chat)
    }
    return chat
  }

  function responsesView(): object {
    let responses = views.get("responses")
    if (responses === undefined) {
      const realResponses = target.responses as object
      responses = view(
        realResponses,
        { create: recoveringCreate(responsesWire, realResponses, target, settings) },
        proxy,
      )
      views.set("responses", responses)
    }
    return responses
  }

  realClients.set(proxy, target)
  return proxy as RecoveringClient<C, Mode>
}
