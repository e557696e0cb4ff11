/**
 * `@tool-rescue/openai/wire`: the two OpenAI wire mappings of this package (Chat Completions and
 * Responses) as {@link ApiAdapter} rows, for front ends that speak the wire format themselves
 * rather than through the `openai` client — the recovery proxy (`@tool-rescue/proxy`) reads and
 * writes the same chunks, events and bodies with them, so the skip rules, the retry bodies and
 * the splice of a retry into one stream live here once.
 */
export { chatApi, responsesApi } from "./apis.ts"
export type { ApiAdapter, SplicerSettings } from "./recovering-create.ts"
