// biome-ignore-all lint/suspicious/noExplicitAny: Effect's response and tool types are generic over the caller's toolkit; `any` is how Effect itself spells "any toolkit".
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { AiError, Response } from "effect/ai"
import fc from "fast-check"
import { ToolCallRecovery } from "../src/index.ts"
import { classifyToolCall, type RawToolCall } from "../src/unknown-tool-calls/classify-tool-calls.ts"
import { callPartOf, jsonParams, resultPartOf } from "../src/unknown-tool-calls/tool-call-error-part.ts"
import {
  call,
  effectsHistory,
  exportHistory,
  finish,
  historyShape,
  type Mode,
  modes,
  oneResponse,
  recordingHandlers,
  runOurs,
  toolkit,
} from "./support/fixtures.ts"

/** Values a provider built on `LanguageModel.make` could hand over as params: JSON and far beyond. */
const anyParams: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue(),
  fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withNullPrototype: true,
    withObjectString: true,
    withSet: true,
    withSparseArray: true,
    withTypedArray: true,
  }),
  fc.constantFrom<unknown>(
    1n,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    undefined,
    () => 1,
    Symbol("s"),
    '{"broken',
    cyclic(),
    withThrowingGetter(),
    deeplyNested(100_000),
  ),
)

/** Tool names the toolkit does not hold (`GetWeather` and `GetTime` are held). */
const unknownName = fc
  .string({ minLength: 1, maxLength: 20 })
  .filter((name) => name !== "GetWeather" && name !== "GetTime")

const metadata = fc.dictionary(
  fc.string({ maxLength: 8 }),
  // Provider metadata is JSON from the wire: `-0` (which fc.jsonValue can generate) cannot
  // arrive that way, and JSON turns it into `0`, so the round trip below would compare `-0` to `0`.
  fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as Schema.Json),
  {
    maxKeys: 3,
  },
)

const unknownCall = fc.record({ name: unknownName, params: anyParams, metadata })

const encodeAiError = Schema.encodeSync(AiError.AiError)
const encodeJson = Schema.encodeSync(Schema.fromJsonString(ToolCallRecovery.ToolCallErrorPart))
const decodeJson = Schema.decodeSync(Schema.fromJsonString(ToolCallRecovery.ToolCallErrorPart))
const isErrorPart = Schema.is(ToolCallRecovery.ToolCallErrorPart)

/**
 * The schema guards, built once per mode. `anyToolPart`: the call and failed result that come
 * with an error part name a tool the toolkit does not hold, so they satisfy Effect's schema for
 * any tool.
 */
const guards: Record<Mode, { responsePart: (u: unknown) => boolean; anyToolPart: (u: unknown) => boolean }> =
  {
    generateText: {
      responsePart: Schema.is(Schema.Union([Response.Part(toolkit), ToolCallRecovery.ToolCallErrorPart])),
      anyToolPart: Schema.is(Response.Part()),
    },
    streamText: {
      responsePart: Schema.is(
        Schema.Union([Response.StreamPart(toolkit), ToolCallRecovery.ToolCallErrorPart]),
      ),
      anyToolPart: Schema.is(Response.StreamPart()),
    },
  }

/*
 * Two properties, so that the many runs go where they are cheap: the parts made for one call
 * (300 runs, no model), and their placement in real responses and histories (fewer runs: each
 * goes through Effect's LanguageModel, its tool resolution and a Chat export).
 */
describe("the parts made for any unknown call", () => {
  it("satisfy their schemas, survive JSON, and keep JSON params unchanged", () => {
    fc.assert(
      fc.property(unknownCall, fc.boolean(), ({ name, params, metadata: meta }, resolution) => {
        const raw = Response.makePart("tool-call", {
          id: "c1",
          name,
          params,
          providerExecuted: false,
          metadata: meta,
        }) as RawToolCall
        const part = Effect.runSync(
          classifyToolCall(raw, { tools: toolkit.tools, resolution, errorParts: true }),
        )
        assert.isTrue(ToolCallRecovery.isToolCallErrorPart(part))
        if (!ToolCallRecovery.isToolCallErrorPart(part)) return
        assert.isTrue(isErrorPart(part))
        assert.strictEqual(part.error.reason._tag, "ToolNotFoundError")
        const decoded = decodeJson(encodeJson(part))
        assert.deepStrictEqual({ ...decoded, params: null }, { ...part, params: null }, "JSON round trip")
        assert.isTrue(sameJson(decoded.params, part.params), "JSON round trip of params")
        if (jsonParams(params).json) assert.strictEqual(part.params, params, "JSON params unchanged")
        else assert.typeOf(part.params, "string")
        const call = callPartOf(part)
        const result = resultPartOf(part)
        for (const mode of modes) {
          assert.isTrue(guards[mode].anyToolPart(call), `the call satisfies Effect's ${mode} schema`)
          assert.isTrue(guards[mode].anyToolPart(result), `the result satisfies Effect's ${mode} schema`)
        }
        assert.strictEqual(call.params, part.params)
        assert.isTrue(result.isFailure)
        assert.strictEqual(result.result, part.error)
        assert.deepStrictEqual(result.encodedResult, encodeAiError(part.error))
      }),
      { numRuns: 300 },
    )
  })
})

describe("a returned tool-call-error part always satisfies the response schema", () => {
  it.effect("for any unknown calls, through generateText and streamText, resolution on and off", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.array(unknownCall, { minLength: 1, maxLength: 3 }),
          fc.constantFrom<Mode>("generateText", "streamText"),
          fc.boolean(),
          async (calls, mode, resolution) => {
            const parts = calls.map(
              (c, i) =>
                ({ ...call(`c${i}`, c.name, c.params), metadata: c.metadata }) as Response.PartEncoded,
            )
            const run = runOurs(mode, {
              prompt: "hi",
              toolkit,
              disableToolCallResolution: !resolution,
              unknownToolCalls: "return",
            }).pipe(
              Effect.provide(oneResponse(mode, [...parts, finish("tool-calls")]).layer),
              Effect.provide(recordingHandlers().layer),
            )
            const content = await Effect.runPromise(run)
            const errors = content.filter(ToolCallRecovery.isToolCallErrorPart)
            assert.deepStrictEqual(
              errors.map((part) => [part.id, part.name]),
              calls.map((c, i) => [`c${i}`, c.name]),
            )
            const generate = mode === "generateText"
            const { responsePart, anyToolPart } = guards[mode]
            const byId = new Map(errors.map((part) => [part.id, part]))
            for (const part of content) {
              const id = "id" in part ? part.id : undefined
              const error = id === undefined ? undefined : byId.get(id)
              if (error === undefined || part.type === "tool-call-error") {
                assert.isTrue(responsePart(part), `${part.type} satisfies the response schema`)
              } else {
                assert.isTrue(anyToolPart(part), `${part.type} satisfies Effect's schema for any tool`)
                if (part.type === "tool-call") assert.strictEqual(part.params, error.params)
                if (part.type === "tool-result") {
                  assert.isTrue(part.isFailure)
                  assert.strictEqual(part.result, error.error)
                  assert.deepStrictEqual(part.encodedResult, encodeAiError(error.error))
                }
              }
            }
            // Each error part comes with exactly one call before it and one failed result after it;
            // in a stream the result comes before `finish`, in generateText after the content.
            const types = content.map((part) => `${part.type}:${"id" in part ? part.id : ""}`)
            const finishAt = types.indexOf("finish:")
            for (const id of byId.keys()) {
              const at = (type: string) => types.indexOf(`${type}:${id}`)
              assert.strictEqual(types.filter((t) => t === `tool-call:${id}`).length, 1)
              assert.strictEqual(types.filter((t) => t === `tool-result:${id}`).length, 1)
              assert.strictEqual(at("tool-call-error"), at("tool-call") + 1)
              assert.isTrue(
                generate ? at("tool-result") > finishAt : at("tool-result") < finishAt,
                `the result of ${id} is placed as Effect places tool results`,
              )
            }
            // Effect's own Prompt.fromResponseParts answers every call with its failed result.
            const shape = historyShape(effectsHistory(content))
            assert.deepStrictEqual(
              shape.calls,
              errors.map((part) => [part.id, part.name, part.params]),
            )
            assert.deepStrictEqual(
              shape.results,
              errors.map((part) => [part.id, part.name, true, "ToolNotFoundError"]),
            )
            for (const [i, part] of errors.entries()) {
              const original = calls[i]?.params
              if (jsonParams(original).json)
                assert.strictEqual(part.params, original, "JSON params unchanged")
              else assert.typeOf(part.params, "string")
            }
            // The history holding them always exports.
            await Effect.runPromise(exportHistory(content as never))
          },
        ),
        { numRuns: 60 },
      ),
    ),
  )
})

describe("jsonParams", () => {
  it("keeps any JSON value as it is", () => {
    fc.assert(
      fc.property(fc.jsonValue() as fc.Arbitrary<Schema.Json>, (value) => {
        const checked = jsonParams(value)
        assert.isTrue(checked.json)
        assert.strictEqual(checked.value, value)
      }),
    )
  })

  it("never throws, and what it calls JSON survives JSON unchanged", () => {
    fc.assert(
      fc.property(anyParams, (value) => {
        const checked = jsonParams(value)
        if (checked.json) assert.isTrue(sameJson(JSON.parse(JSON.stringify(value)), value))
        else {
          assert.typeOf(checked.value, "string")
          assert.isNotEmpty(checked.problem)
        }
      }),
    )
  })

  it("names the problem of values that are not JSON", () => {
    assert.deepInclude(jsonParams(1n), { json: false, value: "1n" })
    assert.deepInclude(jsonParams({ a: Number.NaN }), { json: false, value: '{"a":"NaN"}' })
    assert.deepInclude(jsonParams(cyclic()), { json: false, value: '{"self":"[circular]"}' })
    assert.isFalse(jsonParams(withThrowingGetter()).json)
    assert.isFalse(jsonParams(deeplyNested(100_000)).json)
    assert.isFalse(jsonParams(new Date(0)).json)
    // biome-ignore lint/suspicious/noSparseArray: the point of the test
    assert.isFalse(jsonParams([1, , 3]).json)
  })
})

/** Deep equality by JSON semantics (numbers by value, so -0 equals 0). */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return a === b
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((key) => Object.hasOwn(b, key) && sameJson((a as never)[key], (b as never)[key]))
}

function cyclic(): object {
  const value: { self?: unknown } = {}
  value.self = value
  return value
}

function withThrowingGetter(): object {
  return Object.defineProperty({}, "boom", {
    enumerable: true,
    get() {
      throw new Error("boom")
    },
  })
}

function deeplyNested(depth: number): unknown {
  let value: unknown = 0
  for (let i = 0; i < depth; i++) value = [value]
  return value
}
