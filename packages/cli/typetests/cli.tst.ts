import { describe, expect, test } from "tstyche"
import {
  type CliIo,
  ExitCode,
  type ExitCodeValue,
  isCliError,
  main,
  runDemo,
  runProbe,
  runScan,
} from "../src/index.ts"

describe("the command functions", () => {
  test("take argv and an io, and resolve to an exit code", () => {
    expect(main).type.toBe<(argv: readonly string[], io: CliIo) => Promise<number>>()
    expect(runScan).type.toBe<(argv: readonly string[], io: CliIo) => Promise<number>>()
    expect(runProbe).type.toBe<(argv: readonly string[], io: CliIo) => Promise<number>>()
    expect(runDemo).type.toBe<(argv: readonly string[], io: CliIo) => Promise<number>>()
  })

  test("an io needs its streams, environment and working directory", () => {
    expect(main).type.not.toBeCallableWith(["scan"], { stdout: process.stdout })
    expect(main).type.toBeCallableWith(["demo"], {
      stdout: { write: (_: string) => true },
      stderr: { write: (_: string) => true },
      stdin: process.stdin,
      env: {},
      cwd: "/",
    })
  })
})

describe("exit codes", () => {
  test("are the documented literals", () => {
    expect(ExitCode).type.toBe<{ readonly ok: 0; readonly findings: 1; readonly error: 2 }>()
    expect<ExitCodeValue>().type.toBe<0 | 1 | 2>()
  })

  test("isCliError narrows", () => {
    const error: unknown = new Error("x")
    if (isCliError(error)) expect(error.exitCode).type.toBe<ExitCodeValue>()
  })
})
