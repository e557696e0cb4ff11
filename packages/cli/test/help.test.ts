/**
 * The help texts and the READMEs say the same thing: every option a command's --help lists is in
 * that command's README section, every example in --help uses only options the help lists, and
 * each help has its own examples and exit codes and fits an 80-column terminal.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { type CommandName, commandHelp, overviewHelp } from "../src/help.ts"

const commands: readonly CommandName[] = ["demo", "scan", "probe", "serve", "report"]
const cliReadme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
const proxyReadme = readFileSync(new URL("../../proxy/README.md", import.meta.url), "utf8")

/** The part of the README that documents `command` (serve's home is the proxy's README). */
function readmeSection(command: CommandName): string {
  if (command === "serve") return proxyReadme
  const start = cliReadme.indexOf(`## \`tool-rescue ${command}`)
  expect(start, `the CLI README has a section for ${command}`).toBeGreaterThanOrEqual(0)
  const end = cliReadme.indexOf("\n## ", start + 1)
  return cliReadme.slice(start, end < 0 ? undefined : end)
}

/** The long options a help text lists in its "Options:" section. */
function listedOptions(help: string): string[] {
  const section = help.slice(help.indexOf("Options:"), help.indexOf("\n\n", help.indexOf("Options:")))
  return [...section.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!)
}

/** The example command lines, with continuations joined. */
function examples(help: string): string[] {
  const start = help.indexOf("Examples:\n")
  if (start < 0) return []
  const block = help.slice(start + "Examples:\n".length, help.indexOf("\n\n", start))
  return block
    .replaceAll(/ \\\n\s+/g, " ")
    .split("\n")
    .map((line) => line.trim())
}

describe("--help", () => {
  for (const command of commands) {
    const help = commandHelp(command)
    it(`${command}: every option is in its README section`, () => {
      const section = readmeSection(command)
      const missing = listedOptions(help).filter((flag) => flag !== "--help" && !section.includes(flag))
      expect(missing).toEqual([])
    })

    it(`${command}: has examples that use only its options, and its own exit codes`, () => {
      const lines = examples(help)
      expect(lines.length).toBeGreaterThan(0)
      const options = new Set(listedOptions(help))
      for (const line of lines) {
        expect(
          line.startsWith(`tool-rescue ${command}`) || line.includes(`| tool-rescue ${command}`),
          line,
        ).toBe(true)
        for (const flag of line.match(/--[a-z][a-z-]*/g) ?? []) expect(options, line).toContain(flag)
      }
      expect(help).toMatch(/\nExit codes:\n {2}0 /)
    })
  }

  it("every line of every help fits 80 columns", () => {
    for (const help of [overviewHelp, ...commands.map(commandHelp)])
      for (const line of help.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80)
  })
})
