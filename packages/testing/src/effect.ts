// The Effect AI provider alone (`@tool-rescue/testing/effect`): needs `effect` (^4.1), nothing else.
export { type OpenAiCompatibleModelOptions, openAiCompatibleModel } from "./openai-compatible-model.ts"
