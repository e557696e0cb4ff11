export {
  checkUnknownToolCalls,
  type GenerateTextResponse,
  generateText,
  returningUnknownToolCalls,
  streamText,
  type ToolCallErrorPartOf,
  type UnknownToolCalls,
  type UnknownToolCallsOptions,
} from "./accessors.ts"
export { fromResponseParts } from "./from-response-parts.ts"
export {
  isToolCallErrorPart,
  type ToolCallErrorCallPart,
  ToolCallErrorPart,
  type ToolCallErrorPartEncoded,
  type ToolCallErrorResultPart,
} from "./tool-call-error-part.ts"
