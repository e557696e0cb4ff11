export { decorate, layer, type Options, type WithRecovery, withRecovery } from "./decorate.ts"
export { fromResponseParts } from "./from-response-parts.ts"
export {
  isToolCallErrorPart,
  ToolCallErrorPart,
  type ToolCallErrorPartEncoded,
} from "./tool-call-error-part.ts"
export {
  isToolCallRecoveryError,
  type ToolCallRecoveryAiError,
  type ToolCallRecoveryDetails,
} from "./tool-call-recovery-error.ts"
export {
  type GenerateTextResponse,
  generateText,
  streamText,
  type ToolCallErrorPartOf,
  type UnknownToolCalls,
  type UnknownToolCallsOptions,
} from "./unknown-tool-calls.ts"
