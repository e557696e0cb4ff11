import { type Effect, type Layer, Redacted } from "effect"
import type { LanguageModel } from "effect/ai"
import type { HttpClient } from "effect/http"
import { expect, test } from "tstyche"
import { make, type OpenAiCompatibleModelOptions, openAiCompatibleModel } from "../src/index.ts"

const options = { baseURL: "http://127.0.0.1:8000/v1", model: "m" }

test("the layer provides a LanguageModel and needs nothing", () => {
  expect(openAiCompatibleModel(options)).type.toBe<Layer.Layer<LanguageModel.LanguageModel>>()
})

test("make needs an HttpClient and cannot fail", () => {
  expect(make(options)).type.toBe<Effect.Effect<LanguageModel.LanguageModel, never, HttpClient.HttpClient>>()
})

test("options: baseURL and model are required; apiKey and headers optional", () => {
  expect<OpenAiCompatibleModelOptions>().type.toBeAssignableFrom({ baseURL: "u", model: "m" })
  expect<OpenAiCompatibleModelOptions>().type.toBeAssignableFrom({
    baseURL: "u",
    model: "m",
    apiKey: Redacted.make("k"),
    headers: { "x-a": "b" },
  })
  expect<OpenAiCompatibleModelOptions>().type.not.toBeAssignableFrom({ baseURL: "u" })
  expect<OpenAiCompatibleModelOptions>().type.not.toBeAssignableFrom({
    model: "m",
    baseURL: "u",
    headers: { a: 1 },
  })
})
