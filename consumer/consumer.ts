// A user's file, compiled by check.mjs against the packed packages on TypeScript 5.8, 6.0 and 7
// with `skipLibCheck: false`. Each `Assert<Equal<…>>` fails to compile if a published type
// drifts from what the sources promise (tstyche proves the same against the sources).
import type { LanguageModelV4Middleware } from "@ai-sdk/provider"
import type { ToolCallRecoveryMiddlewareOptions, toolCallRecoveryMiddleware } from "@tool-rescue/ai-sdk"
import { createDetector, type DetectorResult, type FormatId, scan } from "@tool-rescue/detector"
import { isToolCallRecoveryError, ToolCallRecovery } from "@tool-rescue/effect"
import type { ToolCallRecoveryOptions as LangChainOptions } from "@tool-rescue/langchain"
import { type ToolCallRecoveryOptions, withToolCallRecovery } from "@tool-rescue/openai"
import {
  type RecoveryEvent,
  type RecoveryOptions,
  type SharedOptionName,
  ToolCallRecoveryError,
} from "@tool-rescue/recovery"
import { type HistoryReader, isRetryRequest, turnRecoveries } from "@tool-rescue/recovery/adapter"
import { startReplayServer } from "@tool-rescue/testing/replay"
import { Schema } from "effect"
import { type Chat, Tool, Toolkit } from "effect/ai"
import OpenAI from "openai"

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
type Assert<T extends true> = T

// detector
const detector = createDetector({ tools: ["read_file"] })
const pushed: DetectorResult = detector.push("hello")
const format: FormatId | undefined = scan("x").markup[0]?.format
void pushed
void format

// ai-sdk: exactly the SDK's middleware type
export type AiSdkMiddleware = Assert<
  Equal<ReturnType<typeof toolCallRecoveryMiddleware>, LanguageModelV4Middleware>
>

// openai: the wrapped client keeps the client's type
const client = withToolCallRecovery(new OpenAI({ apiKey: "x" }), { maxRecoveries: 1 })
export type OpenAIClient = Assert<Equal<typeof client, OpenAI>>
// An options value whose unknownToolCalls is not statically known keeps the error parts.
const options: ToolCallRecoveryOptions = { maxRecoveries: 1 }
void options

// effect: the namespace's types are types, its values values
const GetWeather = Tool.make("GetWeather", {
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.String,
})
const toolkit = Toolkit.make(GetWeather)
export type ErrorPart = ToolCallRecovery.ToolCallErrorPart
export type Unknown = ToolCallRecovery.UnknownToolCalls
export type Options = ToolCallRecovery.Options
const layer = ToolCallRecovery.layer()
const generated = ToolCallRecovery.generateText({ prompt: "hi", toolkit })
const returned = ToolCallRecovery.generateText({ prompt: "hi", toolkit, unknownToolCalls: "return" })
type Success<T> = T extends { pipe: unknown }
  ? T extends import("effect").Effect.Effect<infer A, infer _E, infer _R>
    ? A
    : never
  : never
// The default option keeps Effect's own types: no error part can appear.
export type DefaultErrors = Assert<Equal<Success<typeof generated>["toolCallErrors"], Array<never>>>
// With "return" the error part joins.
export type ReturnedErrors = Assert<
  Equal<Success<typeof returned>["toolCallErrors"], Array<ToolCallRecovery.ToolCallErrorPart>>
>
// withUnknownToolCalls("return") types Chat's response with the error parts, "error" keeps Effect's.
declare const chat: Chat.Chat
const chatReturned = chat
  .generateText({ prompt: "hi", toolkit })
  .pipe(ToolCallRecovery.withUnknownToolCalls("return"))
const chatDefault = chat.generateText({ prompt: "hi", toolkit })
const chatError = chatDefault.pipe(ToolCallRecovery.withUnknownToolCalls("error"))
export type ChatReturnedErrors = Assert<
  Equal<Success<typeof chatReturned>["toolCallErrors"], Array<ToolCallRecovery.ToolCallErrorPart>>
>
export type ChatErrorKeeps = Assert<Equal<Success<typeof chatError>, Success<typeof chatDefault>>>
void layer
void isToolCallRecoveryError

// recovery
const onEvent = (event: RecoveryEvent): string => event.type
const isRecoveryError = (e: unknown): boolean => ToolCallRecoveryError.isInstance(e)
void onEvent
void isRecoveryError

// recovery's adapter kit, its own entry
const reader: HistoryReader<{ role: string; marked?: number }> = {
  startsTurn: (message) => message.role === "user",
  recoveries: (message) => message.marked ?? 0,
}
const recoveriesBefore: number = turnRecoveries([{ role: "user" }], reader)
const retried: boolean = isRetryRequest({ messages: [] })
void recoveriesBefore
void retried

// testing
void startReplayServer

// Every adapter takes the shared options with the same names and types (ARCHITECTURE.md#policy).
type SharedOf<T> = { [K in SharedOptionName]: K extends keyof T ? T[K] : "missing" }
// Mutual assignability: `Equal` tells an intersection from the same type written out.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
export type SharedAiSdk = Assert<
  Equal<SharedOf<ToolCallRecoveryMiddlewareOptions>, SharedOf<RecoveryOptions>>
>
export type SharedOpenAI = Assert<Same<SharedOf<ToolCallRecoveryOptions>, SharedOf<RecoveryOptions>>>
export type SharedEffect = Assert<Same<SharedOf<ToolCallRecovery.Options>, SharedOf<RecoveryOptions>>>
export type SharedLangChain = Assert<Same<SharedOf<LangChainOptions>, SharedOf<RecoveryOptions>>>
