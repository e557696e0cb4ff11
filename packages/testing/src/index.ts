export { type ChunkedOptions, chunked } from "./chunked.ts"
export {
  type CodeExampleOptions,
  fencedExample,
  htmlCodeExample,
  indentedCodeExample,
  inlineCodeExample,
} from "./code-examples.ts"
export { type CorpusSample, corpus } from "./corpus.ts"
export type { CallLabel, ExampleLabels, Labels, LeakLabels, LeakVariant, Sample } from "./labels.ts"
export {
  allFormats,
  argString,
  defaultFormats,
  type LeakedCallOptions,
  leakedCall,
  leakVariants,
} from "./leaked-call.ts"
export { type ProseOptions, prose } from "./prose.ts"
export { type ProseMentionsOptions, proseMentions } from "./prose-mentions.ts"
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
export { type ResponseLabels, type ResponseOptions, response } from "./response.ts"
export {
  reasoningDelimiters,
  type ThinkingBlockOptions,
  type ThinkingLabels,
  thinkingBlock,
} from "./thinking-block.ts"
