import type { FormatId, Policy } from "@tool-rescue/detector"
import {
  chatChoices,
  chatReasoningText,
  contentText,
  hasChatToolCall,
  isChatChunk,
  isChatCompletion,
  isRecord,
  isResponseEvent,
  isResponseObject,
  type JsonObject,
  readResponseEvent,
  readResponseOutput,
} from "@tool-rescue/wire"
import { idOf, isAssistantMessage, isRequest, requestTools, toolNames } from "./records.ts"
import {
  createJudgePool,
  createResponseScan,
  type Finding,
  type NotRecoverableReason,
  type ResponseScan,
} from "./response-scan.ts"

/** Where a response came from in the input. */
export interface RecordPlace {
  /** 1-based line where the response (or its first chunk) was read; undefined for a JSON document. */
  readonly line: number | undefined
  /** Position in a JSON document, e.g. `[3]`. */
  readonly path: string | undefined
  /** The response id, when recorded. */
  readonly id: string | undefined
}

/** A finding with the place of its response. */
export interface PlacedFinding extends Finding {
  readonly place: RecordPlace
}

/** Counts of one format or one tool. */
export interface FindingCounts {
  /** Markup found. */
  markup: number
  /** Of which tool-rescue would retry. */
  recoverable: number
}

/** An input line (or record) that was skipped, and why. */
export interface SkippedRecord {
  readonly line: number | undefined
  readonly path: string | undefined
  readonly reason: string
}

/** What a scan found. */
export interface ScanReport {
  /** Responses scanned (a chunk stream counts once; each choice of a completion counts once). */
  responses: number
  /** Responses with any tool-call markup. */
  responsesWithMarkup: number
  /** Responses tool-rescue would retry: recoverable markup and no structured call. */
  responsesWithLeaks: number
  /** Responses scanned with no offered tools (none recorded and no `--tools`): nothing in them can be recoverable. */
  responsesWithoutTools: number
  markup: number
  recoverable: number
  /** Why the rest of the markup is not recoverable. */
  readonly notRecoverable: Map<NotRecoverableReason, number>
  readonly byFormat: Map<FormatId, FindingCounts>
  /** By tool name; markup without a readable name is under `""`. */
  readonly byTool: Map<string, FindingCounts>
  /** The first recoverable findings, then the first others (at most `maxExcerpts` of each). */
  readonly leakExamples: PlacedFinding[]
  readonly otherExamples: PlacedFinding[]
  skipped: number
  /** The first skipped records (at most `maxSkipped`). */
  readonly skippedExamples: SkippedRecord[]
}

/** Options of {@link createScanSession}. */
export interface ScanSessionOptions {
  /** Offered tools for records that record none (`--tools`). */
  readonly tools: readonly string[] | undefined
  readonly policy: Policy
  /** @defaultValue 10 */
  readonly maxExcerpts?: number
  /** @defaultValue 20 */
  readonly maxSkipped?: number
}

/** The state of a scan over one input: fed record by record, in input order. */
export interface ScanSession {
  /** A parsed JSON value read at `line` (JSONL, SSE) or at `path` (JSON document). */
  value(value: unknown, line: number | undefined, path?: string): void
  /** `data: [DONE]` of an SSE stream: the open chunk stream ends. */
  done(): void
  /** A line or record that could not be used. */
  skip(reason: string, line: number | undefined, path?: string): void
  /** Plain-text mode: the next piece of the one response the input is. */
  text(delta: string): void
  /** Ends the input (open streams end too) and returns the report. */
  end(): ScanReport
  /** The report so far (for progress). */
  readonly report: ScanReport
}

interface OpenResponse {
  readonly scan: ResponseScan
  readonly place: RecordPlace
  readonly toolless: boolean
}

/**
 * Creates a {@link ScanSession}. A recorded request (a line with `messages`, or `input` and
 * `model`) sets the offered tools for the responses after it, until the next request; a
 * `{ request, response }` pair, a Responses response and a `{ text, tools }` sample carry their
 * own. Chat chunks are grouped by `id` (a new id, `[DONE]` or the end of input ends a stream);
 * a Responses event stream ends at `response.completed` / `incomplete` / `failed` / `error`.
 *
 * @example
 * ```ts
 * const session = createScanSession({ tools: ["read_file"], policy: {} })
 * session.value({ text: "<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>" }, 1)
 * session.end().recoverable // 1
 * ```
 */
export function createScanSession(options: ScanSessionOptions): ScanSession {
  const maxExcerpts = options.maxExcerpts ?? 10
  const maxSkipped = options.maxSkipped ?? 20
  const report: ScanReport = {
    responses: 0,
    responsesWithMarkup: 0,
    responsesWithLeaks: 0,
    responsesWithoutTools: 0,
    markup: 0,
    recoverable: 0,
    notRecoverable: new Map(),
    byFormat: new Map(),
    byTool: new Map(),
    leakExamples: [],
    otherExamples: [],
    skipped: 0,
    skippedExamples: [],
  }
  /** Tools of the last recorded request; undefined until one carries tools. */
  let requestToolNames: readonly string[] | undefined
  /** Open chat chunk streams of the current id, by choice index. */
  let chunkId: string | undefined
  const chunkStreams = new Map<number, OpenResponse>()
  let responsesStream: (OpenResponse & { sawDelta: boolean }) | undefined
  let plain: OpenResponse | undefined

  const fallbackTools = (): readonly string[] | undefined => requestToolNames ?? options.tools
  const pool = createJudgePool(options.policy)

  function open(tools: readonly string[] | undefined, place: RecordPlace): OpenResponse {
    const offered = tools ?? fallbackTools() ?? []
    return { scan: createResponseScan(offered, options.policy, pool), place, toolless: offered.length === 0 }
  }

  function close(response: OpenResponse): void {
    const findings = response.scan.end()
    report.responses++
    if (response.toolless) report.responsesWithoutTools++
    if (findings.length === 0) return
    report.responsesWithMarkup++
    let leak = false
    for (const finding of findings) {
      report.markup++
      if (finding.recoverable) {
        report.recoverable++
        leak = true
      } else if (finding.reason !== undefined) {
        report.notRecoverable.set(finding.reason, (report.notRecoverable.get(finding.reason) ?? 0) + 1)
      }
      count(report.byFormat, finding.markup.format, finding.recoverable)
      count(report.byTool, finding.markup.toolName ?? "", finding.recoverable)
      const examples = finding.recoverable ? report.leakExamples : report.otherExamples
      if (examples.length < maxExcerpts) examples.push({ ...finding, place: response.place })
    }
    if (leak) report.responsesWithLeaks++
  }

  function skip(reason: string, line: number | undefined, path?: string): void {
    report.skipped++
    if (report.skippedExamples.length < maxSkipped) report.skippedExamples.push({ line, path, reason })
  }

  function endChunks(): void {
    for (const response of chunkStreams.values()) close(response)
    chunkStreams.clear()
    chunkId = undefined
  }

  function endResponsesStream(): void {
    if (responsesStream !== undefined) close(responsesStream)
    responsesStream = undefined
  }

  /** A whole response: text and reasoning pieces, and whether it made a structured call. */
  function whole(
    tools: readonly string[] | undefined,
    place: RecordPlace,
    text: readonly string[],
    reasoning: readonly string[],
    structured: boolean,
  ): void {
    const response = open(tools, place)
    for (const piece of reasoning) response.scan.reasoning(piece)
    for (const piece of text) response.scan.text(piece)
    if (structured) response.scan.structuredCall()
    close(response)
  }

  function chunk(value: JsonObject, place: RecordPlace, tools: readonly string[] | undefined): void {
    const id = idOf(value)
    if (chunkStreams.size > 0 && id !== chunkId) endChunks()
    chunkId = id
    for (const choice of chatChoices(value)) {
      const index = typeof choice.index === "number" ? choice.index : 0
      let response = chunkStreams.get(index)
      if (response === undefined) {
        response = open(tools, place)
        chunkStreams.set(index, response)
      }
      const delta = isRecord(choice.delta) ? choice.delta : {}
      const reasoning = chatReasoningText(delta)
      if (reasoning.length > 0) response.scan.reasoning(reasoning)
      const text = contentText(delta.content)
      if (text.length > 0) response.scan.text(text)
      if (hasChatToolCall(delta)) response.scan.structuredCall()
    }
  }

  function responsesEvent(
    event: JsonObject & { readonly type: string },
    place: RecordPlace,
    tools: readonly string[] | undefined,
  ): void {
    const embedded = isRecord(event.response) ? event.response : undefined
    const reading = readResponseEvent(event)
    // A new response starts: one still open lost its terminal event.
    if (reading.kind === "start") endResponsesStream()
    if (responsesStream === undefined) {
      const recorded = embedded === undefined ? undefined : toolNames(embedded.tools)
      responsesStream = {
        ...open(tools ?? recorded, { ...place, id: embedded === undefined ? place.id : idOf(embedded) }),
        sawDelta: false,
      }
    }
    const stream = responsesStream
    switch (reading.kind) {
      case "text":
      case "reasoning":
        stream.sawDelta = true
        if (reading.kind === "text") stream.scan.text(reading.text)
        else stream.scan.reasoning(reading.text)
        return
      case "call":
        stream.scan.structuredCall()
        return
      case "end": {
        const output =
          reading.response === undefined ? undefined : readResponseOutput(reading.response.output)
        if (!stream.sawDelta && output !== undefined) {
          // Only the final event was recorded: its response holds the whole output.
          for (const piece of output.reasoning) stream.scan.reasoning(piece)
          for (const piece of output.text) stream.scan.text(piece)
        }
        if (output?.structured === true) stream.scan.structuredCall()
        endResponsesStream()
        return
      }
      case "start":
      case "other":
        return
      default:
        reading satisfies never
    }
  }

  /** Classifies one JSON value; `tools` are the tools recorded with it (a request/response pair). */
  function classify(
    value: unknown,
    line: number | undefined,
    path: string | undefined,
    tools: readonly string[] | undefined,
  ): void {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) classify(item, line, `${path ?? ""}[${index}]`, tools)
      return
    }
    if (!isRecord(value)) {
      skip(`not a response record (a JSON ${value === null ? "null" : typeof value})`, line, path)
      return
    }
    const place: RecordPlace = { line, path, id: idOf(value) }
    if (isChatChunk(value) || (Array.isArray(value.choices) && value.choices.length === 0)) {
      // (An empty `choices` is the usage chunk at the end of a stream.)
      endResponsesStream()
      chunk(value, place, tools)
      return
    }
    if (isResponseEvent(value)) {
      endChunks()
      responsesEvent(value, place, tools)
      return
    }
    if (value.type === "error" && responsesStream !== undefined) {
      endResponsesStream()
      return
    }
    // Anything else ends open streams before it is read.
    endChunks()
    endResponsesStream()
    if (isChatCompletion(value)) {
      for (const choice of chatChoices(value)) {
        const message = isRecord(choice.message) ? choice.message : {}
        const index = typeof choice.index === "number" ? choice.index : 0
        const id =
          place.id === undefined
            ? undefined
            : chatChoices(value).length > 1
              ? `${place.id}#${index}`
              : place.id
        whole(
          tools,
          { ...place, id },
          [contentText(message.content)],
          [chatReasoningText(message)],
          hasChatToolCall(message),
        )
      }
      return
    }
    if (isResponseObject(value)) {
      const output = readResponseOutput(value.output)
      whole(tools ?? toolNames(value.tools), place, output.text, output.reasoning, output.structured)
      return
    }
    if (isRecord(value.body) && typeof value.status_code === "number") {
      // OpenAI Batch output: { custom_id, response: { status_code, body } }.
      classify(value.body, line, path, tools)
      return
    }
    const pair = value.response ?? value.chunks ?? value.events
    if (pair !== undefined && (isRecord(pair) || Array.isArray(pair))) {
      const recorded = isRecord(value.request) ? requestTools(value.request) : undefined
      classify(pair, line, path, recorded ?? tools)
      endChunks()
      endResponsesStream()
      return
    }
    if (isRequest(value)) {
      requestToolNames = requestTools(value)
      return
    }
    if (isAssistantMessage(value)) {
      whole(tools, place, [contentText(value.content)], [chatReasoningText(value)], hasChatToolCall(value))
      return
    }
    if (typeof value.text === "string") {
      // A `{ text, tools }` sample, or a line of the proxy's failed log (its reasoning too).
      const reasoning = typeof value.reasoning === "string" ? [value.reasoning] : []
      whole(tools ?? toolNames(value.tools), place, [value.text], reasoning, false)
      return
    }
    skip(
      "not a chat completion, chunk, Responses output or event, request, assistant message or {text} record",
      line,
      path,
    )
  }

  return {
    report,
    value: (value, line, path) => classify(value, line, path, undefined),
    done: endChunks,
    skip,
    text(delta) {
      plain ??= open(undefined, { line: 1, path: undefined, id: undefined })
      plain.scan.text(delta)
    },
    end() {
      endChunks()
      endResponsesStream()
      if (plain !== undefined) close(plain)
      plain = undefined
      return report
    },
  }
}

function count<K>(map: Map<K, FindingCounts>, key: K, recoverable: boolean): void {
  let counts = map.get(key)
  if (counts === undefined) {
    counts = { markup: 0, recoverable: 0 }
    map.set(key, counts)
  }
  counts.markup++
  if (recoverable) counts.recoverable++
}
