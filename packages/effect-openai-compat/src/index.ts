export {
  make,
  type OpenAiCompatibleModelOptions,
  openAiCompatibleModel,
} from "./openai-compatible-model.ts"
