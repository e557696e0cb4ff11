export type { FailedResponse } from "@tool-rescue/recovery"
export * as ToolCallRecovery from "./tool-call-recovery.ts"
export {
  isToolCallRecoveryError,
  type ToolCallRecoveryAiError,
  type ToolCallRecoveryDetails,
} from "./tool-call-recovery-error.ts"
