export { emitEvent, type RecoverySkipReason, reportSkipped } from "./emit-event.ts"
export { type AnnouncedCall, findAnnouncedCall } from "./find-announced-call.ts"
export { appendInstruction, defaultInstruction, resolveInstruction } from "./instruction.ts"
export { type ResolvedRecoveryOptions, resolvePlacement, resolveRecoveryOptions } from "./resolve-options.ts"
export { recoverToolCalls, runTurn } from "./run-turn.ts"
export { suggestToolNames } from "./suggest-tool-names.ts"
export {
  isToolCallRecoveryError,
  type MarkupSummary,
  summarizeMarkup,
  ToolCallRecoveryError,
  type ToolCallRecoveryErrorInit,
} from "./tool-call-recovery-error.ts"
export type {
  AttemptContext,
  Channel,
  FailedResponse,
  InstructionContext,
  NormalizedPart,
  OutputPart,
  RecoveryEvent,
  RecoveryOptions,
  ToolCallRecoveryErrorCode,
  TurnInput,
} from "./types.ts"
export {
  classifyToolCall,
  type ReturnsToolCallErrors,
  type ToolCallClass,
  type ToolCallError,
  type ToolCallErrorPartFor,
  type ToolCallErrorsFor,
  toolCallError,
  type UnknownToolCalls,
  unknownToolMessage,
} from "./unknown-tool-calls.ts"
