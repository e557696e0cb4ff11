/**
 * The built-in probe set: coding-agent requests that call for a tool, with the tool schemas an
 * agent really sends (read_file, bash, search; shapes as in Claude Code, OpenHands and Continue).
 */

/** A Chat Completions function tool. */
export interface ProbeTool {
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description: string
    readonly parameters: Readonly<Record<string, unknown>>
  }
}

/** The tools every probe prompt offers. */
export const probeTools: readonly ProbeTool[] = [
  {
    type: "function",
    function: {
      name: "read_file",
      description:
        "Read a text file from the workspace. Returns the file's content with line numbers. Use offset and limit for large files.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "Path of the file, relative to the workspace root." },
          offset: { type: "integer", minimum: 1, description: "First line to read (1-based)." },
          limit: { type: "integer", minimum: 1, description: "Number of lines to read." },
        },
        required: ["path"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "bash",
      description:
        "Run a shell command in the workspace and return its standard output, standard error and exit code. Commands time out after 120 seconds.",
      parameters: {
        type: "object",
        properties: {
          command: { type: "string", description: "The command line to run with bash -c." },
          timeout_ms: {
            type: "integer",
            minimum: 1000,
            maximum: 120000,
            description: "Timeout in milliseconds.",
          },
        },
        required: ["command"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "search",
      description:
        "Search file contents in the workspace with a regular expression (ripgrep syntax). Returns matching lines as path:line:text.",
      parameters: {
        type: "object",
        properties: {
          pattern: { type: "string", description: "The regular expression to search for." },
          path: {
            type: "string",
            description: "Directory or file to search in. Defaults to the workspace root.",
          },
          glob: { type: "string", description: 'Only search files matching this glob, e.g. "*.ts".' },
        },
        required: ["pattern"],
        additionalProperties: false,
      },
    },
  },
]

/** The names of {@link probeTools}. */
export const probeToolNames: readonly string[] = probeTools.map((tool) => tool.function.name)

/** The system prompt of every probe request. */
export const probeSystemPrompt: string =
  "You are a coding agent working in the user's repository. You cannot see any file until you read it. " +
  "Use the tools to inspect files and run commands before you answer; call a tool whenever the task needs one."

/** The user prompts, each answerable only with a tool call. */
export const probePrompts: readonly string[] = [
  "Open package.json and tell me which test runner this project uses.",
  "List the files in the src directory.",
  "Find where the function parseConfig is defined.",
  "Show me the first 20 lines of README.md.",
  "Run the unit tests and tell me which ones fail.",
  "Search the codebase for TODO comments in TypeScript files.",
  "What does src/index.ts export?",
  "Which Node.js version is installed on this machine?",
  "Find all call sites of the deprecated fetchUser helper.",
  "Read tsconfig.json and tell me whether strict mode is on.",
  "Check the git log for the last three commits.",
  "Where is the HTTP port configured? Look in the config directory.",
]
