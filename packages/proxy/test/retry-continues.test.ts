/**
 * The retry continues what the user saw: the prose the first attempt showed before its markup
 * stays, and the retry's text starts on a new line after it (not "I will run it.Calling …"), in
 * every protocol, through each protocol's real client.
 */
import { describe, expect, it } from "vitest"
import { harnessPerTest, QWEN_LEAK } from "./support/harness.ts"
import { protocolClients } from "./support/protocol-clients.ts"

const startHarness = harnessPerTest()

describe("a streamed retry starts on a new line after the shown prose", () => {
  for (const client of protocolClients) {
    it(`${client.name}: "I will run it." then "\\nCalling the tool properly.", and the retry is told what was shown`, async () => {
      const harness = await startHarness([
        { content: `I will run it.${QWEN_LEAK}`, chunkSize: 4 },
        {
          content: "Calling the tool properly.",
          toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }],
        },
      ])
      expect(await client.stream(harness)).toBe("I will run it.\nCalling the tool properly.")
      expect(harness.upstream.requests[1]?.rawBody).toContain(
        'already saw the text before that call: \\"I will run it.\\"',
      )
    })
  }
})
