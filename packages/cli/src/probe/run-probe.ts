import type { FormatId } from "@tool-rescue/detector"
import { withToolCallRecovery } from "@tool-rescue/openai"
import { isToolCallRecoveryError, type RecoveryEvent } from "@tool-rescue/recovery"
import { chatReasoningText, isRecord } from "@tool-rescue/wire"
import OpenAI from "openai"
import { createResponseScan } from "../scan/response-scan.ts"
import { probePrompts, probeSystemPrompt, probeToolNames, probeTools } from "./probe-prompts.ts"

/** What to probe. */
export interface ProbeConfig {
  /** The endpoint, e.g. `http://127.0.0.1:8000/v1`. */
  readonly baseURL: string
  readonly model: string
  readonly apiKey: string
  /** Prompts sent in each mode. */
  readonly runs: number
  readonly stream: boolean
  /** Per request. */
  readonly timeoutMs: number
}

/**
 * How one turn ended:
 * - `tool-call`: a structured tool call (first try);
 * - `leak`: no structured call, and a tool call written as text that tool-rescue would recover
 *   (only without recovery);
 * - `text`: a prose answer, no call and no leak;
 * - `recovered`: the first response leaked, the retry made a structured call;
 * - `recovered-text`: the first response leaked, the retry answered in prose without markup;
 * - `failed`: the retry leaked again and the turn ended with `repeated-markup`.
 */
export type ProbeOutcome = "tool-call" | "leak" | "text" | "recovered" | "recovered-text" | "failed"

/** One probe request (or recovered turn). */
export interface ProbeRun {
  readonly prompt: number
  readonly outcome: ProbeOutcome
  /** Wall time of the turn, first byte sent to last byte read. */
  readonly latencyMs: number
  /** With recovery: the time from the recovery decision to the end of the turn. */
  readonly addedMs: number | undefined
  /** The leaked format, for `leak` and the recovery outcomes. */
  readonly format: FormatId | undefined
}

/** Both series of a probe. */
export interface ProbeResult {
  readonly without: readonly ProbeRun[]
  readonly with: readonly ProbeRun[]
  /** The `server` header of the endpoint's first answer, for the doctor. */
  readonly serverHeader: string | undefined
}

/** Progress of a probe, for the progress bar. */
export interface ProbeProgress {
  readonly mode: "without" | "with"
  readonly done: number
  readonly total: number
  readonly leaks: number
}

/** The response of one attempt, as read. */
interface Reply {
  readonly text: string
  readonly reasoning: string
  readonly calls: number
}

/** Thrown when the endpoint answered something that is not a Chat Completions response. */
export class NotOpenAIError extends Error {
  override readonly name = "NotOpenAIError"
}

/**
 * Sends `config.runs` prompts without recovery, then the same prompts through
 * `withToolCallRecovery`, one at a time, and classifies each turn. Throws the client's error
 * (connection, HTTP status, timeout) or {@link NotOpenAIError} on the first failure.
 *
 * @example
 * ```ts
 * const result = await runProbeMeasurement({ baseURL: "http://127.0.0.1:8000/v1", model: "qwen3-coder", apiKey: "x", runs: 10, stream: true, timeoutMs: 60_000 })
 * ```
 */
export async function runProbeMeasurement(
  config: ProbeConfig,
  onProgress: (progress: ProbeProgress) => void = () => {},
): Promise<ProbeResult> {
  // The client's own retries are off: every request is sent once, so the numbers are the endpoint's.
  let serverHeader: string | undefined
  let answered = false
  const client = new OpenAI({
    baseURL: config.baseURL,
    apiKey: config.apiKey,
    maxRetries: 0,
    timeout: config.timeoutMs,
    // Reads the first answer's `server` header (llama.cpp names itself there) for the doctor.
    fetch: async (url, init) => {
      const response = await fetch(url, init)
      if (!answered) {
        answered = true
        serverHeader = response.headers.get("server") ?? undefined
      }
      return response
    },
  })
  let sink: ((event: RecoveryEvent) => void) | undefined
  const recovering = withToolCallRecovery(client, { onEvent: (event) => sink?.(event) })

  const without: ProbeRun[] = []
  let leaks = 0
  for (let i = 0; i < config.runs; i++) {
    onProgress({ mode: "without", done: i, total: config.runs, leaks })
    const prompt = i % probePrompts.length
    const started = performance.now()
    const reply = await send(client, config, prompt)
    const latencyMs = performance.now() - started
    const leak = reply.calls === 0 ? leakedFormat(reply) : undefined
    if (leak !== undefined) leaks++
    without.push({
      prompt,
      outcome: reply.calls > 0 ? "tool-call" : leak !== undefined ? "leak" : "text",
      latencyMs,
      addedMs: undefined,
      format: leak,
    })
  }
  onProgress({ mode: "without", done: config.runs, total: config.runs, leaks })

  const withRecovery: ProbeRun[] = []
  let recoveries = 0
  for (let i = 0; i < config.runs; i++) {
    onProgress({ mode: "with", done: i, total: config.runs, leaks: recoveries })
    const prompt = i % probePrompts.length
    let recoveryAt: number | undefined
    let format: FormatId | undefined
    sink = (event) => {
      if (event.type === "recovery-started" && recoveryAt === undefined) {
        recoveryAt = performance.now()
        format = event.markup[0]?.format
      }
    }
    const started = performance.now()
    let outcome: ProbeOutcome
    try {
      const reply = await send(recovering as OpenAI, config, prompt)
      if (recoveryAt === undefined) outcome = reply.calls > 0 ? "tool-call" : "text"
      else outcome = reply.calls > 0 ? "recovered" : "recovered-text"
    } catch (error) {
      if (!isToolCallRecoveryError(error) || error.code !== "repeated-markup") throw error
      outcome = "failed"
    } finally {
      sink = undefined
    }
    const ended = performance.now()
    if (recoveryAt !== undefined) recoveries++
    withRecovery.push({
      prompt,
      outcome,
      latencyMs: ended - started,
      addedMs: recoveryAt === undefined ? undefined : ended - recoveryAt,
      format,
    })
  }
  onProgress({ mode: "with", done: config.runs, total: config.runs, leaks: recoveries })
  return { without, with: withRecovery, serverHeader }
}

function leakedFormat(reply: Reply): FormatId | undefined {
  const scan = createResponseScan(probeToolNames, {})
  scan.reasoning(reply.reasoning)
  scan.text(reply.text)
  return scan.end().find((finding) => finding.recoverable)?.markup.format
}

function request(config: ProbeConfig, prompt: number) {
  return {
    model: config.model,
    messages: [
      { role: "system" as const, content: probeSystemPrompt },
      { role: "user" as const, content: probePrompts[prompt] ?? "" },
    ],
    tools: probeTools.map((tool) => ({ type: tool.type, function: { ...tool.function } })),
    tool_choice: "auto" as const,
  }
}

async function send(client: OpenAI, config: ProbeConfig, prompt: number): Promise<Reply> {
  const body = request(config, prompt)
  if (!config.stream) {
    const completion: unknown = await client.chat.completions.create({ ...body, stream: false })
    return readCompletion(completion)
  }
  const stream = await client.chat.completions.create({ ...body, stream: true })
  const text: string[] = []
  const reasoning: string[] = []
  let calls = 0
  let chunks = 0
  for await (const chunk of stream as AsyncIterable<unknown>) {
    if (!isRecord(chunk) || !Array.isArray(chunk.choices)) {
      throw new NotOpenAIError(`a stream event is not a chat.completion.chunk: ${preview(chunk)}`)
    }
    chunks++
    for (const choice of chunk.choices) {
      const delta = isRecord(choice) && isRecord(choice.delta) ? choice.delta : {}
      if (typeof delta.content === "string") text.push(delta.content)
      const thought = chatReasoningText(delta)
      if (thought.length > 0) reasoning.push(thought)
      if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) calls++
    }
  }
  if (chunks === 0) throw new NotOpenAIError("the stream ended without a single chat.completion.chunk")
  return { text: text.join(""), reasoning: reasoning.join(""), calls }
}

function readCompletion(completion: unknown): Reply {
  if (!isRecord(completion) || !Array.isArray(completion.choices)) {
    throw new NotOpenAIError(`the answer is not a chat completion: ${preview(completion)}`)
  }
  const choice = completion.choices[0]
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined
  if (message === undefined)
    throw new NotOpenAIError(`the chat completion has no message: ${preview(completion)}`)
  return {
    text: typeof message.content === "string" ? message.content : "",
    reasoning: chatReasoningText(message),
    calls: Array.isArray(message.tool_calls) ? message.tool_calls.length : 0,
  }
}

function preview(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value))
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}
