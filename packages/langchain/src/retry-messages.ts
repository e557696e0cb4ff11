import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages"
import { appendInstruction } from "@tool-rescue/recovery"

/**
 * The messages of a retry: the original request's messages (the malformed response was never
 * added to them) with the instruction placed per `instructionPlacement` — merged into the leading
 * system message, or a new one first (`"system"`: Qwen3.5+ templates reject a system message that
 * is not first), or a final user message (`"user"`). The caller's messages are not modified.
 */
export function retryMessages(
  messages: readonly BaseMessage[],
  instruction: string,
  placement: "system" | "user",
): BaseMessage[] {
  if (placement === "user") return [...messages, new HumanMessage(instruction)]
  const [first, ...rest] = messages
  if (first === undefined || !SystemMessage.isInstance(first)) {
    return [new SystemMessage(instruction), ...messages]
  }
  return [mergedSystem(first, instruction), ...rest]
}

function mergedSystem(system: SystemMessage, instruction: string): SystemMessage {
  const fields = {
    ...(system.id === undefined ? {} : { id: system.id }),
    ...(system.name === undefined ? {} : { name: system.name }),
    additional_kwargs: system.additional_kwargs,
  }
  if (typeof system.content === "string") {
    return new SystemMessage({ ...fields, content: appendInstruction(system.content, instruction) })
  }
  // Content blocks (e.g. with cache_control): keep them, and add the instruction as a text block.
  return new SystemMessage({ ...fields, content: [...system.content, { type: "text", text: instruction }] })
}
