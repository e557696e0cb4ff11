export type { ChatChunk, ChatChunkChoice, ChatRaw } from "./chat-chunk-parts.ts"
export type { ChatCompletion, ChatCompletionChoice } from "./chat-completion-parts.ts"
export { chatCompletions } from "./chat-completions.ts"
export {
  chatChoices,
  chatReasoningText,
  hasChatToolCall,
  isChatChunk,
  isChatCompletion,
} from "./chat-shapes.ts"
export {
  arrayField,
  contentText,
  eventType,
  isRecord,
  type JsonKind,
  type JsonObject,
  jsonKind,
} from "./json.ts"
export { messages } from "./messages.ts"
export type { MessageObject, MessageRef, MessagesEvent } from "./messages-parts.ts"
export { type ListedModel, readModelList } from "./model-list.ts"
export type { ResponseEvent } from "./response-event-parts.ts"
export type { ResponseObject, ResponseRef } from "./response-parts.ts"
export {
  isResponseCallItem,
  isResponseEvent,
  isResponseObject,
  type ResponseEventReading,
  readResponseEvent,
  readResponseOutput,
} from "./response-shapes.ts"
export { responses } from "./responses.ts"
export {
  type ErrorKind,
  type ErrorShape,
  recoveryErrorStatus,
  type WireError,
  type WireEvent,
} from "./wire-error.ts"
export type {
  AnyWireProtocol,
  CallMarks,
  Splicer,
  SplicerSettings,
  WireProtocol,
} from "./wire-protocol.ts"
