/**
 * An OpenAI-compatible HTTP server that answers from a script: the test double for adapters,
 * the CLI demo and users' own tests. It speaks the wire formats real clients parse (the
 * `openai` client, `@ai-sdk/openai-compatible`), over a real `node:http` socket on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { chatCompletionFrames, chatCompletionJson, chatErrorFrame } from "./replay-chat.ts"
import { messagesErrorFrame, messagesErrorJson, messagesFrames, messagesJson } from "./replay-messages.ts"
import { type ResolvedReply, resolveReply, type SseFrame } from "./replay-reply.ts"
import { responsesErrorFrame, responsesFrames, responsesJson } from "./replay-responses.ts"
import type {
  ReplayApi,
  ReplayErrorBody,
  ReplayRequest,
  ReplayRequestBody,
  ReplayServer,
  ReplayServerOptions,
  ReplayStep,
} from "./replay-script.ts"

/** The routes and the one method each accepts. */
const routes: ReadonlyMap<string, { readonly api: ReplayApi; readonly method: string }> = new Map([
  ["/v1/chat/completions", { api: "chat", method: "POST" }],
  ["/v1/responses", { api: "responses", method: "POST" }],
  ["/v1/messages", { api: "messages", method: "POST" }],
  ["/v1/models", { api: "models", method: "GET" }],
])

/** Thrown (internally) when the server closes while a handler waits. */
class ClosedError extends Error {}

function errorType(status: number): string {
  if (status === 401) return "authentication_error"
  if (status === 404) return "not_found_error"
  if (status === 429) return "rate_limit_error"
  return status >= 500 ? "server_error" : "invalid_request_error"
}

function fullError(status: number, error: ReplayErrorBody): Required<ReplayErrorBody> {
  return {
    message: error.message ?? `Replay server error (HTTP ${status})`,
    type: error.type ?? errorType(status),
    code: error.code ?? null,
    param: error.param ?? null,
  }
}

/** The APIs that answer from the script. */
type ScriptedApi = Exclude<ReplayApi, "models">

/** The non-streaming body of `api`. */
function replyJson(api: ScriptedApi, reply: ResolvedReply, body: ReplayRequestBody): Record<string, unknown> {
  if (api === "chat") return chatCompletionJson(reply)
  if (api === "messages") return messagesJson(reply)
  return responsesJson(reply, body)
}

/** The SSE frames of `api`. */
function replyFrames(api: ScriptedApi, reply: ResolvedReply, body: ReplayRequestBody): SseFrame[] {
  if (api === "messages") return messagesFrames(reply)
  if (api === "responses") return responsesFrames(reply, body)
  const streamOptions = body.stream_options
  const includeUsage =
    typeof streamOptions === "object" &&
    streamOptions !== null &&
    (streamOptions as { include_usage?: unknown }).include_usage === true
  return chatCompletionFrames(reply, includeUsage)
}

/** The mid-stream error frame of `api`. */
function errorFrame(api: ScriptedApi, error: Required<ReplayErrorBody>, sent: number): SseFrame {
  if (api === "chat") return chatErrorFrame(error)
  if (api === "messages") return messagesErrorFrame(error)
  return responsesErrorFrame(error, sent)
}

function isHttpError(step: ReplayStep): step is Extract<ReplayStep, { httpError: unknown }> {
  return "httpError" in step && step.httpError !== undefined
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    request.on("data", (part: Buffer) => parts.push(part))
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
    request.on("error", reject)
  })
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return headers
}

/**
 * Starts a replay server on 127.0.0.1 (a random free port unless `port` is given). Each request
 * to `POST /v1/chat/completions`, `POST /v1/responses` or `POST /v1/messages` (Anthropic
 * Messages, with Anthropic's event shapes and error bodies) is answered by the next step of the
 * script — as JSON, or as SSE when the request has `stream: true` (chat honours
 * `stream_options.include_usage`). `GET /v1/models` lists `models`. Malformed requests get
 * OpenAI-style error JSON (400 invalid JSON or missing `model`/`messages`, 404 unknown route,
 * 405 wrong method) and do not consume a step; a request beyond the script gets a 500 saying the
 * script is exhausted. Responses carry an `x-request-id` header (`req_replay_<n>`). Each recorded
 * request says whether its client went away before the response was complete (`closedByClient`).
 *
 * Note that the `openai` client retries 408/409/429/5xx and dropped connections twice by
 * default: each retry is a new request that takes the next step. Use `maxRetries: 0` to see
 * scripted errors directly.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { startReplayServer } from "@tool-rescue/testing"
 *
 * const server = await startReplayServer({
 *   script: [
 *     { content: "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>", chunkSize: 3 },
 *     { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] },
 *   ],
 * })
 * const client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 })
 * const stream = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true })
 * for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? "")
 * console.log(server.requests.length) // 1
 * await server.close()
 * ```
 */
export async function startReplayServer(options: ReplayServerOptions): Promise<ReplayServer> {
  const requests: ReplayRequest[] = []
  const models = options.models ?? ["replay-model"]
  const sockets = new Set<Socket>()
  const timers = new Set<{ timer: ReturnType<typeof setTimeout>; cancel: () => void }>()
  let turns = 0
  let closed = false
  /** Responses the script cut (`drop`): their close is not the client's. */
  const cutByServer = new WeakSet<ServerResponse>()

  /** Waits `ms`, or rejects with ClosedError when the server closes or `response` goes away first. */
  const sleep = (ms: number, response: ServerResponse): Promise<void> => {
    if (closed || response.destroyed) return Promise.reject(new ClosedError())
    if (ms <= 0) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const entry = {
        timer: setTimeout(() => {
          timers.delete(entry)
          response.off("close", entry.cancel)
          resolve()
        }, ms),
        cancel: () => {
          clearTimeout(entry.timer)
          timers.delete(entry)
          reject(new ClosedError())
        },
      }
      timers.add(entry)
      response.once("close", entry.cancel)
    })
  }

  /** Holds `response` open, silent, until its client goes away (or the server closes: ClosedError). */
  const stalled = (response: ServerResponse): Promise<void> =>
    sleep(2 ** 31 - 1, response).catch((error: unknown) => {
      if (!(error instanceof ClosedError) || closed) throw error
    })

  const sendJson = (
    response: ServerResponse,
    request: ReplayRequest,
    status: number,
    body: unknown,
    headers: Readonly<Record<string, string>> = {},
  ): void => {
    if (response.destroyed) return
    const text = JSON.stringify(body)
    response.writeHead(status, {
      ...headers,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      "x-request-id": `req_replay_${request.index}`,
    })
    response.end(text)
  }

  const sendError = (
    response: ServerResponse,
    request: ReplayRequest,
    status: number,
    error: ReplayErrorBody,
    headers?: Readonly<Record<string, string>>,
  ): void => {
    const body =
      request.api === "messages" ? messagesErrorJson(status, error) : { error: fullError(status, error) }
    sendJson(response, request, status, body, headers)
  }

  const writeFrame = (response: ServerResponse, frame: SseFrame): void => {
    const event = frame.event === undefined ? "" : `event: ${frame.event}\n`
    response.write(`${event}data: ${frame.data}\n\n`)
  }

  const replay = async (
    request: ReplayRequest,
    response: ServerResponse,
    api: ScriptedApi,
    step: ReplayStep,
    turn: number,
  ): Promise<void> => {
    await sleep(step.latencyMs ?? 0, response)
    if (isHttpError(step)) {
      const { status, headers, ...error } = step.httpError
      sendError(response, request, status, error, headers)
      return
    }
    const body = request.body ?? {}
    const reply = resolveReply(step, body, turn)
    const stream = body.stream === true
    const interrupt = step.interrupt
    if (!stream) {
      if (interrupt?.kind === "drop") {
        cutByServer.add(response)
        response.destroy()
        return
      }
      if (interrupt?.kind === "stall") {
        const text = JSON.stringify(replyJson(api, reply, body))
        response.writeHead(200, {
          ...step.headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
          "x-request-id": `req_replay_${request.index}`,
        })
        response.write(text.slice(0, Math.floor(text.length / 2)))
        await stalled(response)
        return
      }
      if (interrupt?.kind === "error") {
        sendError(response, request, 500, interrupt.error ?? {}, step.headers)
        return
      }
      if (interrupt?.kind === "end") {
        const json = JSON.stringify(replyJson(api, reply, body))
        response.writeHead(200, {
          ...step.headers,
          "content-type": "application/json",
          "x-request-id": `req_replay_${request.index}`,
        })
        response.end(json.slice(0, json.length >> 1))
        return
      }
      sendJson(response, request, 200, replyJson(api, reply, body), step.headers)
      return
    }
    const frames = replyFrames(api, reply, body)
    response.writeHead(200, {
      ...step.headers,
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-request-id": `req_replay_${request.index}`,
    })
    response.flushHeaders()
    let deltas = 0
    let sent = 0
    for (const frame of frames) {
      // The client went away (a consumer `break`, an abort): stop writing.
      if (response.destroyed) return
      if (frame.delta) {
        if (interrupt !== undefined && interrupt.kind !== "hold" && deltas >= interrupt.afterChunks) break
        await sleep(step.chunkDelayMs ?? 0, response)
        deltas++
      }
      writeFrame(response, frame)
      sent++
    }
    if (interrupt?.kind === "hold") {
      await stalled(response)
      return
    }
    if (interrupt === undefined || sent === frames.length || interrupt.kind === "end") {
      response.end()
      return
    }
    if (interrupt.kind === "stall") {
      await stalled(response)
      return
    }
    if (interrupt.kind === "drop") {
      // Let the written frames reach the client before the reset, so "after N chunks" holds.
      await new Promise<void>((resolve) => response.write("", () => resolve()))
      cutByServer.add(response)
      response.socket?.resetAndDestroy()
      return
    }
    const error = fullError(500, interrupt.error ?? {})
    writeFrame(response, errorFrame(api, error, sent))
    response.end()
  }

  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const rawBody = await readBody(incoming)
    const path = (incoming.url ?? "/").split("?")[0] ?? "/"
    const route = routes.get(path) ?? (path.startsWith("/v1/models/") ? routes.get("/v1/models") : undefined)
    let body: ReplayRequestBody | undefined
    let invalidJson = false
    if (rawBody.length > 0) {
      try {
        const parsed: unknown = JSON.parse(rawBody)
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
          body = parsed as ReplayRequestBody
        else invalidJson = true
      } catch {
        invalidJson = true
      }
    }
    const request: { -readonly [K in keyof ReplayRequest]: ReplayRequest[K] } = {
      index: requests.length,
      method: incoming.method ?? "GET",
      path,
      api: route?.api,
      headers: headersOf(incoming),
      body,
      rawBody,
      closedByClient: false,
    }
    requests.push(request)
    response.once("close", () => {
      if (!response.writableFinished && !closed && !cutByServer.has(response)) request.closedByClient = true
    })

    if (route === undefined) {
      sendError(response, request, 404, {
        message: `Unknown request URL: ${request.method} ${path}.`,
        code: "unknown_url",
      })
      return
    }
    if (request.method !== route.method) {
      sendError(
        response,
        request,
        405,
        { message: `Method ${request.method} not allowed on ${path}; use ${route.method}.` },
        {
          allow: route.method,
        },
      )
      return
    }
    if (route.api === "models") {
      const created = Math.floor(Date.now() / 1000)
      const list = models.map((id) => ({ id, object: "model", created, owned_by: "tool-rescue-replay" }))
      if (path === "/v1/models") {
        sendJson(response, request, 200, { object: "list", data: list })
        return
      }
      const id = decodeURIComponent(path.slice("/v1/models/".length))
      const model = list.find((entry) => entry.id === id)
      if (model === undefined)
        sendError(response, request, 404, {
          message: `The model '${id}' does not exist.`,
          code: "model_not_found",
          param: "model",
        })
      else sendJson(response, request, 200, model)
      return
    }
    if (invalidJson) {
      sendError(response, request, 400, { message: "The request body is not a valid JSON object." })
      return
    }
    if (body === undefined || typeof body.model !== "string" || body.model.length === 0) {
      sendError(response, request, 400, { message: "You must provide a model parameter.", param: "model" })
      return
    }
    if ((route.api === "chat" || route.api === "messages") && !Array.isArray(body.messages)) {
      sendError(response, request, 400, {
        message: "Missing required parameter: 'messages'.",
        code: "missing_required_parameter",
        param: "messages",
      })
      return
    }
    const turn = turns++
    const step = await nextStep(request, turn)
    if (typeof step === "string") {
      sendError(response, request, 500, { message: step, code: "replay_script_exhausted" })
      return
    }
    await replay(request, response, route.api, step, turn)
  }

  const nextStep = async (request: ReplayRequest, turn: number): Promise<ReplayStep | string> => {
    const script = options.script
    const exhausted = (length: string): string =>
      `Replay script exhausted: request #${request.index} (${request.method} ${request.path}) is scripted request #${turn}, but the script has ${length}.`
    if (typeof script === "function") {
      try {
        const step = await script(request, turn)
        return step ?? exhausted("no step for it (the script function returned undefined)")
      } catch (error) {
        return `Replay script function threw: ${error instanceof Error ? error.message : String(error)}`
      }
    }
    return script[turn] ?? exhausted(`${script.length} step${script.length === 1 ? "" : "s"}`)
  }

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      if (error instanceof ClosedError) {
        response.destroy()
        return
      }
      if (!response.headersSent) {
        const text = JSON.stringify({
          error: fullError(500, { message: `Replay server failure: ${String(error)}` }),
        })
        response.writeHead(500, { "content-type": "application/json" }).end(text)
      } else {
        response.destroy()
      }
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo

  let closing: Promise<void> | undefined
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        closed = true
        for (const entry of [...timers]) entry.cancel()
        server.close(() => resolve())
        server.closeAllConnections()
        for (const socket of sockets) socket.destroy()
      })
      return closing
    },
  }
}
