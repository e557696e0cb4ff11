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
// The replay entry's names come through that entry (`./replay.ts`): one home for where they live.
export {
  type ReplayApi,
  type ReplayErrorBody,
  type ReplayFinishReason,
  type ReplayHttpError,
  type ReplayInterrupt,
  type ReplayReply,
  type ReplayRequest,
  type ReplayRequestBody,
  type ReplayScript,
  type ReplayServer,
  type ReplayServerOptions,
  type ReplayStep,
  type ReplayToolCall,
  type ReplayUsage,
  startReplayServer,
} from "./replay.ts"
export { type ResponseLabels, type ResponseOptions, response } from "./response.ts"
export { type SpacedNameCallOptions, spacedNameCall } from "./spaced-name-call.ts"
export {
  type OfferedInStepOptions,
  offeredInStep,
  type ProseTagMentionsOptions,
  proseTagMentions,
  type StepLabels,
  type TagMentionLabels,
} from "./step-tools.ts"
export {
  type StrayToken,
  type StrayTokenLabels,
  type StrayTokenRole,
  type StrayTokensOptions,
  strayTokens,
} from "./stray-tokens.ts"
export {
  reasoningDelimiters,
  type ThinkingBlockOptions,
  type ThinkingLabels,
  thinkingBlock,
} from "./thinking-block.ts"
