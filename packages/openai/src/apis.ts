/** The two APIs the wrapper recovers, as {@link ApiAdapter}s of the shared `create`. */
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions"
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses"
import { type ChatRaw, chunkParts, createChatSplicer } from "./chat-chunk-parts.ts"
import { completionParts, completionResult } from "./chat-completion-parts.ts"
import { planChat, planResponses } from "./plan.ts"
import type { ApiAdapter } from "./recovering-create.ts"
import { createResponsesSplicer, eventParts } from "./response-event-parts.ts"
import { type ResponseRef, responseParts, responseResult } from "./response-parts.ts"
import { chatRetryBody, responsesRetryBody } from "./retry-request.ts"

/** `chat.completions.create`. */
export const chatApi: ApiAdapter<ChatCompletionChunk, ChatRaw, ChatCompletion, ChatCompletion> = {
  plan: planChat,
  retryBody: chatRetryBody,
  streamParts: chunkParts,
  createSplicer: createChatSplicer,
  dataParts: completionParts,
  result: completionResult,
}

/** `responses.create`. */
export const responsesApi: ApiAdapter<ResponseStreamEvent, ResponseStreamEvent, Response, ResponseRef> = {
  plan: planResponses,
  retryBody: responsesRetryBody,
  streamParts: eventParts,
  createSplicer: createResponsesSplicer,
  dataParts: responseParts,
  result: responseResult,
}
