import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages"
import { type PromptOperations, placeInstruction } from "@tool-rescue/recovery/adapter"

/** `recovery`'s `placeInstruction` operations on a LangChain message list. */
const operations: PromptOperations<readonly BaseMessage[]> = {
  mergeSystem: (messages, merge) => {
    const [first, ...rest] = messages
    if (first === undefined || !SystemMessage.isInstance(first)) return undefined
    const fields = {
      ...(first.id === undefined ? {} : { id: first.id }),
      ...(first.name === undefined ? {} : { name: first.name }),
      additional_kwargs: first.additional_kwargs,
    }
    // Content blocks (e.g. with cache_control) are kept; the instruction is a text block after them.
    const content =
      typeof first.content === "string"
        ? merge(first.content)
        : [...first.content, { type: "text" as const, text: merge("") }]
    return [new SystemMessage({ ...fields, content }), ...rest]
  },
  prependSystem: (messages, text) => [new SystemMessage(text), ...messages],
  appendUser: (messages, text) => [...messages, new HumanMessage(text)],
}

/**
 * The messages of a retry: the original request's messages (the malformed response was never
 * added to them) with the instruction placed per `instructionPlacement`. The caller's messages are
 * not modified.
 */
export function retryMessages(
  messages: readonly BaseMessage[],
  instruction: string,
  placement: "system" | "user",
): BaseMessage[] {
  return [...placeInstruction(messages, instruction, placement, operations)]
}
