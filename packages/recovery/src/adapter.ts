// The adapters' kit (`@tool-rescue/recovery/adapter`): every rule a framework adapter, the proxy
// or the CLI applies, once — the turn plan, the turn mark, instruction placement, usage summing,
// retry ids, reasoning fields, the response judge. Users need only the root entry (./index.ts).
export {
  createResponseJudge,
  type JudgedMarkup,
  type Judgement,
  type ResponseJudge,
  type ResponseJudgeOptions,
} from "./create-response-judge.ts"
export { type AnnouncedCall, findAnnouncedCall } from "./find-announced-call.ts"
export { appendInstruction, isRetryRequest } from "./instruction.ts"
export { createMarkupOutcomes, type MarkupOutcomes } from "./markup-outcomes.ts"
export { createModelLabels, MODEL_LABEL_LIMIT } from "./model-labels.ts"
export { type PromptOperations, placeInstruction } from "./place-instruction.ts"
export {
  type HistoryReader,
  planTurn,
  type RecoverPlan,
  type TurnPlan,
  type TurnRequest,
  turnRecoveries,
} from "./plan-turn.ts"
export { type ReasoningField, reasoningField } from "./reasoning-field.ts"
export { errorCodeOutcomes, type RecoveryOutcome, recoveryOutcome } from "./recovery-outcome.ts"
export { type ResolvedRecoveryOptions, resolvePlacement, resolveRecoveryOptions } from "./resolve-options.ts"
export { retryId } from "./retry-id.ts"
export { suggestToolNames } from "./suggest-tool-names.ts"
export { sumUsage } from "./sum-usage.ts"
export { type TurnMark, turnMarkOf, withTurnMark } from "./turn-mark.ts"
export {
  createTurnMemory,
  type RecalledTurn,
  type RememberedTurn,
  recallTurn,
  sortedKeys,
  type TurnMemory,
  type TurnMemoryLimits,
  turnKey,
} from "./turn-memory.ts"
export { classifyToolCall, type ToolCallClass, toolCallError } from "./unknown-tool-calls.ts"
