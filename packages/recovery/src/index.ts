export {
  createResponseJudge,
  type JudgedMarkup,
  type Judgement,
  type ResponseJudge,
  type ResponseJudgeOptions,
} from "./create-response-judge.ts"
export { emitEvent, type RecoverySkipReason, reportSkipped } from "./emit-event.ts"
export { type AnnouncedCall, findAnnouncedCall } from "./find-announced-call.ts"
export { appendInstruction, defaultInstruction, resolveInstruction } from "./instruction.ts"
export { type MarkupReason, markupReason, type ResponseFacts } from "./markup-reason.ts"
export { type PromptOperations, placeInstruction } from "./place-instruction.ts"
export {
  type HistoryReader,
  planTurn,
  type RecoverPlan,
  type TurnPlan,
  type TurnRequest,
  turnRecoveries,
} from "./plan-turn.ts"
export { type ReasoningField, reasoningField, reasoningFields } from "./reasoning-field.ts"
export { type ResolvedRecoveryOptions, resolvePlacement, resolveRecoveryOptions } from "./resolve-options.ts"
export { retryId } from "./retry-id.ts"
export { recoverToolCalls, runTurn } from "./run-turn.ts"
export { suggestToolNames } from "./suggest-tool-names.ts"
export { sumUsage } from "./sum-usage.ts"
export {
  isToolCallRecoveryError,
  type MarkupSummary,
  summarizeMarkup,
  ToolCallRecoveryError,
  type ToolCallRecoveryErrorInit,
} from "./tool-call-recovery-error.ts"
export {
  createTurnTelemetry,
  type RecoveryOutcome,
  recoveryOutcome,
  TELEMETRY_SCOPE,
  type TurnTelemetry,
} from "./turn-telemetry.ts"
export type {
  AttemptContext,
  Channel,
  FailedResponse,
  InstructionContext,
  NormalizedPart,
  OutputPart,
  RecoverToolCallsInput,
  RecoveryEvent,
  RecoveryOptions,
  SharedOptionName,
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
