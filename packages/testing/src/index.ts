export type {
  ReplayApi,
  ReplayErrorBody,
  ReplayFinishReason,
  ReplayHttpError,
  ReplayInterrupt,
  ReplayReply,
  ReplayRequest,
  ReplayRequestBody,
  ReplayScript,
  ReplayServer,
  ReplayServerOptions,
  ReplayStep,
  ReplayToolCall,
  ReplayUsage,
} from "./replay-script.ts"
export { startReplayServer } from "./replay-server.ts"
