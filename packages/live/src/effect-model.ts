// The one place that names the Effect OpenAI-compatible LanguageModel: swap this import when it
// moves to its own package (`@tool-rescue/effect-openai-compat`).
export { openAiCompatibleModel } from "@tool-rescue/testing/effect"
