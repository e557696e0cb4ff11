/** The two APIs the wrapper recovers, as {@link ApiAdapter}s of the shared `create`. */
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions"
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses"
import { type ChatRaw, chunkCallIds, chunkParts, createChatSplicer } from "./chat-chunk-parts.ts"
import { completionCallIds, completionParts, completionResult } from "./chat-completion-parts.ts"
import { chatRequest, chatTurn, responsesRequest, responsesTurn } from "./plan.ts"
import type { ApiAdapter } from "./recovering-create.ts"
import { createResponsesSplicer, eventCallIds, eventParts } from "./response-event-parts.ts"
import { type ResponseRef, refCallIds, responseParts, responseResult } from "./response-parts.ts"
import { chatRetryBody, responsesRetryBody } from "./retry-request.ts"

/** `chat.completions.create`. */
export const chatApi: ApiAdapter<ChatCompletionChunk, ChatRaw, ChatCompletion, ChatCompletion> = {
  request: chatRequest,
  turn: chatTurn,
  retryBody: chatRetryBody,
  streamParts: chunkParts,
  streamCallIds: chunkCallIds,
  createSplicer: createChatSplicer,
  dataParts: completionParts,
  dataCallIds: completionCallIds,
  result: completionResult,
}

/** `responses.create`. */
export const responsesApi: ApiAdapter<ResponseStreamEvent, ResponseStreamEvent, Response, ResponseRef> = {
  request: responsesRequest,
  turn: responsesTurn,
  retryBody: responsesRetryBody,
  streamParts: eventParts,
  streamCallIds: eventCallIds,
  createSplicer: createResponsesSplicer,
  dataParts: responseParts,
  dataCallIds: refCallIds,
  result: responseResult,
}
