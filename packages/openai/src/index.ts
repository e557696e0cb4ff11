export {
  type FailedResponse,
  isToolCallRecoveryError,
  type RecoveryEvent,
  type ToolCallError,
  ToolCallRecoveryError,
  type UnknownToolCalls,
} from "@tool-rescue/recovery"
export type {
  ChatCompletionChunkWithToolCallErrors,
  ChatCreateWithToolCallErrors,
  ClientWithToolCallErrors,
  OpenAIClientLike,
  RecoveringClient,
  ResponseStreamEventWithToolCallErrors,
  ResponsesCreateWithToolCallErrors,
  ToolCallErrorsField,
} from "./client-types.ts"
export type { ToolCallRecoveryOptions } from "./options.ts"
export { toolCallErrorMessages, toolCallErrorOutputs } from "./tool-call-error-answers.ts"
export { withToolCallRecovery } from "./with-tool-call-recovery.ts"
