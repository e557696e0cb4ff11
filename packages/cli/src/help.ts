/** The `--help` texts. Kept beside each other so they read as one manual. */

/** The commands `tool-rescue` knows. */
export type CommandName = "demo" | "scan" | "probe" | "serve" | "report"

// The overview's summary; each command's help lists its own codes.
const EXIT_CODES = `Exit codes:
  0  success
  1  a finding: scan found recoverable leaks, a demo step misbehaved
  2  bad arguments, unreadable input, an endpoint that failed, or an
     address that could not be bound
  (each command's --help lists its own)`

/**
 * `tool-rescue --help`.
 *
 * @example
 * ```ts
 * import { overviewHelp } from "@tool-rescue/cli"
 *
 * process.stdout.write(overviewHelp)
 * ```
 */
export const overviewHelp: string = `tool-rescue — tool calling that survives the model writing a tool call as text

Usage:
  tool-rescue <command> [options]

Commands:
  demo    play a leaked tool call through the openai, AI SDK, Effect and
          LangChain adapters and the proxy on a built-in replay server (no
          network, a few seconds)
  scan    find tool calls written as text in recorded responses (JSONL, JSON,
          SSE chunk streams, Responses outputs or plain text)
  probe   measure leak rate and recovery on a live OpenAI-compatible endpoint
  serve   run the recovery proxy in front of an OpenAI- or Anthropic-compatible
          server, for agents in any language
  report  leaks per model, format, tool and outcome from the proxy's failed
          log: a terminal table, Markdown, JSON or a self-contained HTML page

Options:
  -h, --help     show help (also: tool-rescue <command> --help)
  -v, --version  print the version

Examples:
  tool-rescue demo
  tool-rescue scan responses.jsonl
  tool-rescue serve --upstream http://127.0.0.1:11434/v1

${EXIT_CODES}
`

/**
 * `tool-rescue demo --help`.
 *
 * @example
 * ```ts
 * import { demoHelp } from "@tool-rescue/cli"
 *
 * process.stdout.write(demoHelp)
 * ```
 */
export const demoHelp: string = `Usage: tool-rescue demo [options]

Plays one agent turn through each adapter (openai, AI SDK, Effect, LangChain,
and a plain HTTP client through the recovery proxy) against an embedded
OpenAI-compatible replay server on 127.0.0.1:

  1. the model streams prose and leaks a Qwen3-Coder call with the opening
     <tool_call> missing; the detector flags it and the markup never reaches
     the screen; the failed response is persisted; the retry carries the host
     instruction; the structured call runs a real read_file tool; the final
     answer arrives;
  2. the model leaks twice and the turn ends with the explicit error
     (code "repeated-markup").

Options:
  --only <adapter>  run one adapter: openai, ai-sdk, effect, langchain or proxy
                    (a plain fetch client, no SDK, through tool-rescue serve)
  --keep            keep the scratch workspace and its failed-responses log
  -h, --help        show this help

Examples:
  tool-rescue demo
  tool-rescue demo --only proxy --keep

Exit codes:
  0  every step behaved as shown
  1  a step did not behave as shown (the summary names it)
  2  bad arguments
`

/**
 * `tool-rescue scan --help`.
 *
 * @example
 * ```ts
 * import { scanHelp } from "@tool-rescue/cli"
 *
 * process.stdout.write(scanHelp)
 * ```
 */
export const scanHelp: string = `Usage: tool-rescue scan <file | -> [options]

Reads recorded model responses and reports tool calls written as text: per
format, per tool, with short excerpts. "-" reads standard input.

Input (detected from the first lines; --format forces one):
  jsonl  one JSON value a line: chat completions, chat.completion.chunk
         streams (grouped by id), Responses API responses or stream events,
         {"request": …, "response": …} pairs, OpenAI Batch output lines,
         assistant messages, or {"text": …, "tools": [...]} samples; a request
         line (with "messages" or "input") sets the offered tools for the
         responses after it
  json   one JSON document (an array or object of the above), read whole
  sse    raw server-sent events ("data: {…}" lines, "data: [DONE]")
  text   the whole input is one response text

Offered tools: a leak is recoverable only when it names an offered tool. They
come from the recorded request or response ("tools"); --tools is used for
records that carry none.

Options:
  --tools <a,b,…>       offered tool names for records without recorded tools
  --format <f>          auto (default), jsonl, json, sse or text
  --evidence <e>        structure (default) or envelope (ARCHITECTURE.md#policy)
  --reasoning <r>       auto (default), ignore or recover
  --excerpts <n>        excerpts to show (default 10, 0 for none)
  --json                print one JSON report on stdout instead of text
  -h, --help            show this help

Malformed lines are reported with their line number and skipped. JSONL, SSE
and text are read in constant memory; a JSON document is parsed whole.

Examples:
  tool-rescue scan responses.jsonl
  tool-rescue scan failed.jsonl --json > leaks.json
  pbpaste | tool-rescue scan - --format text --tools read_file,bash

Exit codes:
  0  no recoverable leak
  1  recoverable leaks were found
  2  bad arguments or unreadable input
`

/**
 * `tool-rescue probe --help`.
 *
 * @example
 * ```ts
 * import { probeHelp } from "@tool-rescue/cli"
 *
 * process.stdout.write(probeHelp)
 * ```
 */
export const probeHelp: string = `Usage: tool-rescue probe --base-url <url> --model <id> [options]

Sends tool-calling prompts (a built-in set of coding-agent tasks with real
read_file, bash and search tool schemas) to a live OpenAI-compatible endpoint,
first without and then with tool-rescue, and reports the leak rate, the
recovery success rate and the latency recovery adds.

Options:
  --base-url <url>   the endpoint, e.g. http://127.0.0.1:8000/v1 (required)
  --model <id>       the model id (required)
  --api-key <key>    default: $OPENAI_API_KEY, else "no-key"
  --runs <n>         prompts to send in each mode (default 10, at most 1000)
  --stream           use streaming chat completions
  --timeout <s>      seconds per request (default 60)
  --server <s>       the server behind the endpoint, for the doctor's advice:
                     auto (default: from /v1/models owned_by, the server
                     header, or the port), vllm, sglang, llamacpp, ollama or
                     lmstudio
  --markdown         print Markdown (to paste into a bug report) instead of text
  --json             print one JSON report on stdout instead of text
  -h, --help         show this help

The doctor reads the results: when leaks come on most turns, or always in one
format, the server's tool parser or chat template likely does not match the
model, and it prints what to check in that server (the parser for the leaked
format, --jinja, the model's template); docs/troubleshooting.md has the table.

Every request is sent once: the client's own retries are off, so what you
see is what the endpoint did.

Examples:
  tool-rescue probe --base-url http://127.0.0.1:11434/v1 --model qwen3-coder:30b
  tool-rescue probe --base-url http://127.0.0.1:8000/v1 --model my-model \\
    --stream --runs 20 --markdown > probe.md

Exit codes:
  0  the probe ran (whatever the leak rate: read the report)
  2  bad arguments, or an endpoint that refused, rejected, timed out or did
     not answer like the OpenAI API
`

/**
 * `tool-rescue serve --help`.
 *
 * @example
 * ```ts
 * import { serveHelp } from "@tool-rescue/cli"
 *
 * process.stdout.write(serveHelp)
 * ```
 */
export const serveHelp: string = `Usage: tool-rescue serve --upstream <url> [options]

Runs the recovery proxy: OpenAI Chat Completions, Responses and Anthropic
Messages requests (streaming and not) are forwarded to the upstream, a tool
call the model wrote as text is kept off the client's screen and retried once
with a host instruction; every other path is passed through untouched. Point
the client's base URL at the printed address instead of the upstream's.

Options:
  --upstream <url>         the server to forward to, e.g.
                           http://127.0.0.1:11434/v1 (required; env
                           TOOL_RESCUE_UPSTREAM)
  --port <n>               port to listen on (default 8787, 0 for any free
                           port; env TOOL_RESCUE_PORT)
  --host <h>               address to bind (default 127.0.0.1; env
                           TOOL_RESCUE_HOST)
  --failed-log <path>      append each malformed response to this JSONL
                           file, opened at start and created 0600 (default
                           off; env TOOL_RESCUE_FAILED_LOG)
  --log-level <level>      trace, debug, info (default), warn, error, fatal
                           or silent (env TOOL_RESCUE_LOG_LEVEL)
  --max-recoveries <n>     retries per agent turn (one user turn; default 1)
  --placement <p>          where the instruction goes: system (default) or user
  --max-body-mb <n>        request body limit in MiB (default 32)
  --upstream-timeout <s>   seconds to wait for the upstream's headers
                           (default 300; env TOOL_RESCUE_UPSTREAM_TIMEOUT)
  --upstream-idle-timeout <s>
                           seconds the upstream may stay silent once its
                           headers are in (default 300; env
                           TOOL_RESCUE_UPSTREAM_IDLE_TIMEOUT)
  --request-idle-timeout <s>
                           seconds a client's request body may stay silent
                           before a 408 (default 30)
  --grace <s>              seconds in-flight requests get on SIGTERM
                           (default 10)
  --allowed-host <name>    serve this Host name too (repeatable;
                           .example.com for a domain and its subdomains);
                           others get 403
  --api-key <key>          clients must present this key (Authorization:
                           Bearer or x-api-key); that header is not forwarded
                           (env TOOL_RESCUE_API_KEY, which keeps it out of ps)
  -h, --help               show this help

Security: requests are served only for the Host names localhost, *.localhost,
any IP address, the --host name and --allowed-host (against DNS rebinding by a
web page). Binding anything but loopback prints a warning: without --api-key,
whoever reaches the port uses the upstream. user:password@ in --upstream is
sent as Basic auth (unless the client sends its own Authorization).

Flags win over environment variables. The log goes to stderr: readable on a
terminal, JSON lines otherwise; one line per turn that recovered, failed or
errored (model, protocol, route, format, tools, rounds; never prompts,
answers or keys). GET /healthz answers {"status":"ok"}; GET /metrics gives
Prometheus counters (by model). SIGINT or SIGTERM stops accepting,
lets in-flight requests finish for the grace period, and exits 0.

Examples:
  tool-rescue serve --upstream http://127.0.0.1:11434/v1
  tool-rescue serve --upstream http://127.0.0.1:8000/v1 --port 9000 \\
    --failed-log failed.jsonl

Exit codes:
  0  stopped by SIGINT or SIGTERM
  2  bad arguments, or the address could not be bound
`

/**
 * `tool-rescue report --help`.
 *
 * @example
 * ```ts
 * import { reportHelp } from "@tool-rescue/cli"
 *
 * process.stdout.write(reportHelp)
 * ```
 */
export const reportHelp: string = `Usage: tool-rescue report <failed log…> [options]

Reads the proxy's failed logs (tool-rescue serve --failed-log; JSONL, one
malformed response a line) and reports the leaks per model, format, leaked
tool and outcome (retried, repeated, truncated, not-offered), how many retries
recovered, and the leaks over time. Records from older proxies that lack a
field count it as "unknown". "-" reads standard input.

Options:
  --since <t>       only records from then on: an ISO 8601 date or time, or a
                    span back from now (30m, 24h, 7d, 2w)
  --metrics <url>   the proxy's /metrics (e.g. http://127.0.0.1:8787/metrics):
                    requests with tools per model, for leak rates
  --timeout <s>     seconds to wait for --metrics (default 10)
  --markdown        print Markdown (to paste into a bug report) instead of text
  --json            print one JSON report on stdout instead of text
  --html <file>     also write one self-contained HTML page: a chart per model
                    of leaks by format over time and of the outcomes (inline
                    SVG; no network, no JavaScript)
  -h, --help        show this help

Lines that are not failed-log records are reported with their file and line
number and skipped. Logs are read in constant memory.

Examples:
  tool-rescue report failed.jsonl
  tool-rescue report failed.jsonl --since 7d --markdown > leaks.md
  tool-rescue report failed-*.jsonl --metrics http://127.0.0.1:8787/metrics \\
    --html leaks.html

Exit codes:
  0  the report was written
  2  bad arguments or unreadable input
`

/** The help text of `command`. */
export function commandHelp(command: CommandName): string {
  switch (command) {
    case "demo":
      return demoHelp
    case "scan":
      return scanHelp
    case "probe":
      return probeHelp
    case "serve":
      return serveHelp
    case "report":
      return reportHelp
    default:
      return command satisfies never
  }
}
