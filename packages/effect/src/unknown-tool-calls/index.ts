/**
 * # unknown-tool-calls: a stand-in for Effect-TS/effect#7574
 *
 * Everything in this folder exists only because Effect 4.1 fails the whole operation on a
 * structured call to a tool the toolkit does not hold. It goes when Effect ships the option. The
 * rest of the package reaches it only through this file; nothing here knows about leaked markup.
 *
 * ## What Effect does today (effect 4.1.0, `effect/ai`)
 *
 * `Response.Part(toolkit)` builds its `tool-call` union from the toolkit's tool names, so a call
 * to any other name does not decode: `generateText` and `streamText` fail with an `AiError`
 * (`InvalidOutputError`, module `LanguageModel`) whose message does not name the tool, and a
 * stream fails after the parts before it. With `disableToolCallResolution: true` a known tool's
 * invalid params fail the same way, whatever its `failureMode`. Only
 * `toolCallValidation: "deferred"` (from 4.0.4, #8182) returns such calls, raw, for callers that
 * run tools themselves.
 *
 * ## What #7574 proposes ("unstable/ai: recover unknown tool calls", open)
 *
 * `generateText` and `streamText` take `unknownToolCalls: "error" | "return"`. `"error"`, the
 * default, is today's behaviour. With `"return"` an unknown call comes back as a
 * `tool-call-error` part carrying the call, its params and a `ToolNotFoundError`;
 * `response.toolCallErrors` lists them; `Prompt.fromResponseParts` turns the part into the
 * assistant's call plus a failed tool result, so the model can correct itself. Calls to known
 * tools are unaffected (#7588 already sends their parameter failures through `failureMode`).
 *
 * ## What this folder does instead
 *
 * The same option, values and part (`{ id, name, params, error, providerExecuted, metadata }`),
 * over Effect 4.1: the request goes out with deferred validation, the calls are classified here
 * (`classify-tool-calls.ts`), and Effect's own resolution of the known calls (handlers,
 * approvals, `failureMode`, ordering) runs over the classified parts through a replay
 * (`replay-resolution.ts`, `returning.ts`). Because Effect 4.1's `Prompt.fromResponseParts`
 * ignores a part it does not know, each error part travels with a standard `tool-call` and a
 * failed `tool-result` (`tool-call-error-part.ts`); `fromResponseParts` only types that for the
 * caller. `decorate`'s `unknownToolCalls` option applies the same paths to a whole service
 * (`returningUnknownToolCalls`), and so does `withUnknownToolCalls` for one effect or stream
 * (`honouringUnknownToolCalls`, which both use: a request's own option wins), the per-call form
 * for `Chat`, whose 4.1 types reject the option.
 *
 * ## Removal path, when Effect ships #7574
 *
 * The tripwire: `typetests/unknown-tool-calls.tst.ts` asserts that Effect's
 * `LanguageModel.GenerateTextOptions` has no `unknownToolCalls` and that `Response.AnyPart` has
 * no `"tool-call-error"`; an `effect` upgrade that ships the option fails it.
 *
 * 1. Raise the `effect` peer range to the first version with the option.
 * 2. Delete this folder. Nothing outside it depends on it except these imports: `decorate.ts`
 *    (`checkUnknownToolCalls`, `honouringUnknownToolCalls`, `UnknownToolCallsOptions`) and
 *    `tool-call-recovery.ts` (the public re-exports). `approved-calls.ts`, `untyped-model.ts` and
 *    `resolve-toolkit.ts` stay: the markup recovery uses them too.
 * 3. Switch, with a changeset (deprecated aliases for one minor, then gone):
 *    - `ToolCallRecovery.generateText` / `streamText` → Effect's `LanguageModel.generateText` /
 *      `streamText` with the option;
 *    - `ToolCallErrorPart` (type, schema, `isToolCallErrorPart`, `ToolCallErrorPartEncoded`,
 *      `ToolCallErrorCallPart`, `ToolCallErrorResultPart`), `GenerateTextResponse`,
 *      `ToolCallErrorPartOf`, `UnknownToolCalls(Options)` → Effect's part and types;
 *    - `fromResponseParts` → `Prompt.fromResponseParts`;
 *    - `withUnknownToolCalls(mode)` → the option on the `Chat` call itself (Effect's `Chat`
 *      forwards it); `test/http.test.ts` ("under withUnknownToolCalls") proves the switch;
 *    - `decorate`'s `unknownToolCalls: "return"` → put the option on every request the decorated
 *      service receives that does not set it (the README promises that);
 *    - the default option with `disableToolCallResolution: true` (a known tool's `failureMode`
 *      followed, see `Mode` in `returning.ts`) then behaves as Effect does: say so in the changeset.
 * 4. These tests then prove the switch (point them at Effect's own accessors; each case that
 *    fails is a difference to document before removing):
 *    - `test/unknown-tool-calls.test.ts`: every case runs our accessors (`runOurs` in
 *      `test/support/fixtures.ts`) beside Effect's (`runEffects`): same parts, order, `Chat`
 *      history, approvals, `failureMode`, errors;
 *    - `test/tool-call-error-part.prop.test.ts`: the part's JSON round trip and that a history
 *      holding it always exports (`Chat.exportJson`);
 *    - `typetests/unknown-tool-calls.tst.ts`: the default option's types are exactly Effect's,
 *      `"return"` adds the part;
 *    - the layer form: `test/decorate.test.ts` ("the layer recovers the leak, then
 *      unknownToolCalls returns the unknown call"), `test/http.test.ts` and `test/turn.test.ts`
 *      (the `unknownToolCalls: "return"` cases), `test/example.test.ts` (the README's agent).
 *
 * @module
 */
export {
  checkUnknownToolCalls,
  type GenerateTextResponse,
  generateText,
  streamText,
  type ToolCallErrorPartOf,
  type UnknownToolCalls,
  type UnknownToolCallsOptions,
} from "./accessors.ts"
export { fromResponseParts } from "./from-response-parts.ts"
export {
  isToolCallErrorPart,
  type ToolCallErrorCallPart,
  ToolCallErrorPart,
  type ToolCallErrorPartEncoded,
  type ToolCallErrorResultPart,
} from "./tool-call-error-part.ts"
export {
  honouringUnknownToolCalls,
  type WithUnknownToolCalls,
  withUnknownToolCalls,
} from "./with-unknown-tool-calls.ts"
