// The users' entry: run a turn, its options, events and errors, and the types of the
// unknown-tool-call option. What adapters build on (the turn plan, instruction placement, the
// turn mark, usage summing, retry ids, …) is `@tool-rescue/recovery/adapter` (./adapter.ts).

export type { RecoverySkipReason } from "./emit-event.ts"
export { defaultInstruction } from "./instruction.ts"
export type { MarkupReason } from "./markup-reason.ts"
export { recoverToolCalls, runTurn } from "./run-turn.ts"
export {
  isToolCallRecoveryError,
  type MarkupSummary,
  ToolCallRecoveryError,
} from "./tool-call-recovery-error.ts"
export type {
  AttemptContext,
  Channel,
  FailedOutcome,
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
export type {
  ReturnsToolCallErrors,
  ToolCallError,
  ToolCallErrorPartFor,
  ToolCallErrorsFor,
  UnknownToolCalls,
} from "./unknown-tool-calls.ts"
