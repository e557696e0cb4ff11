export {
  type FailedResponse,
  isToolCallRecoveryError,
  type RecoveryEvent,
  ToolCallRecoveryError,
  type ToolCallRecoveryErrorCode,
} from "@tool-rescue/recovery"
export type { ToolCallRecoveryMiddlewareOptions } from "./options.ts"
export { toolCallRecoveryMiddleware } from "./tool-call-recovery-middleware.ts"
