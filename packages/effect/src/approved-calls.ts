import { Effect, Stream } from "effect"
import { type Prompt, Response, type Tool, type Toolkit } from "effect/ai"
import type { AnyTools } from "./untyped-model.ts"

/*
 * `LanguageModel` resolves the prompt's tool approvals before it calls the provider: it runs the
 * approved calls and puts their results first in the response. Whoever sends the prompt a second
 * time (a recovery retry, the replay of `unknown-tool-calls/`) must send those results as already
 * answered, or the approved calls run twice.
 */

/**
 * The tool call ids the prompt's approval responses refer to: `LanguageModel` resolves those
 * approvals before it calls the provider, and puts their results first in the content.
 */
export const approvalToolCallIds = (prompt: Prompt.Prompt): ReadonlySet<string> => {
  const requests = new Map<string, string>()
  const responded: string[] = []
  for (const message of prompt.content) {
    if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "tool-approval-request") requests.set(part.approvalId, part.toolCallId)
      }
    } else if (message.role === "tool") {
      for (const part of message.content) {
        if (part.type === "tool-approval-response") responded.push(part.approvalId)
      }
    }
  }
  const ids = new Set<string>()
  for (const approvalId of responded) {
    const toolCallId = requests.get(approvalId)
    if (toolCallId !== undefined) ids.add(toolCallId)
  }
  return ids
}

/** The final result of an approved call that `LanguageModel` ran before calling the provider. */
export interface ApprovedResult {
  readonly id: string
  readonly name: string
  readonly result: Tool.HandlerResult<Tool.Any>
}

/**
 * Wraps a toolkit so that the approved calls `LanguageModel` runs before the provider call are
 * recorded. The replay must not run them a second time: its prompt gets their results.
 */
export const recordApprovedCalls = (
  toolkit: Toolkit.WithHandler<AnyTools>,
): { readonly toolkit: Toolkit.WithHandler<AnyTools>; readonly approved: ApprovedResult[] } => {
  const approved: ApprovedResult[] = []
  const handle: Toolkit.WithHandler<AnyTools>["handle"] = (name, params, toolCallId, options) =>
    Effect.map(
      toolkit.handle(name, params, toolCallId, options),
      Stream.tap((result) =>
        Effect.sync(() => {
          if (!result.preliminary && toolCallId !== undefined) approved.push({ id: toolCallId, name, result })
        }),
      ),
    )
  return { toolkit: { tools: toolkit.tools, handle }, approved }
}

/** The stream form of an approved result (LanguageModel.ts `preResolvedStreamParts`). */
export const approvedStreamPart = ({
  id,
  name,
  result,
}: ApprovedResult): Response.ToolResultPart<string, unknown, unknown> =>
  Response.makePart("tool-result", {
    id,
    name,
    providerExecuted: false,
    preliminary: false,
    result: result.encodedResult,
    encodedResult: result.encodedResult,
    ...(result.modelOutput === undefined ? {} : { modelOutput: result.modelOutput }),
    isFailure: result.isFailure,
  })
