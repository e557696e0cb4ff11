import type { FailedResponse, RecoveryEvent } from "@tool-rescue/recovery"
import { Registry } from "prom-client"
import { describe, expect, test } from "tstyche"
import {
  type AddedLatencyPhase,
  createProxy,
  createProxyMetrics,
  type LeakOutcome,
  type MetricSample,
  type ProtocolName,
  type ProxyOptions,
  parseMetricSamples,
  type ToolRescueProxy,
} from "../src/index.ts"
import { createFailedLog, type ProxyServer, startProxyServer } from "../src/node.ts"

describe("createProxy", () => {
  test("is a web-standard handler", () => {
    const proxy = createProxy({ upstream: "http://127.0.0.1:11434/v1" })
    expect(proxy).type.toBe<ToolRescueProxy>()
    expect(proxy.fetch).type.toBe<(request: Request) => Promise<Response>>()
  })

  test("takes the recovery options every adapter takes, and an upstream", () => {
    expect(createProxy).type.not.toBeCallableWith({})
    expect(createProxy).type.toBeCallableWith({
      upstream: new URL("http://127.0.0.1:8000/v1"),
      maxRecoveries: 2,
    })
    expect(createProxy).type.toBeCallableWith({
      upstream: "http://127.0.0.1:8000/v1",
      persistFailed: async (failed: FailedResponse) => void failed,
      onEvent: (event: RecoveryEvent) => void event,
      instructionPlacement: "user",
    })
    expect(createProxy).type.not.toBeCallableWith({ upstream: "http://x", instructionPlacement: "assistant" })
    expect<ProxyOptions["maxBodyBytes"]>().type.toBe<number | undefined>()
    expect<ProxyOptions["upstreamIdleTimeoutMs"]>().type.toBe<number | undefined>()
    expect(createProxy).type.not.toBeCallableWith({ upstream: "http://x", upstreamIdleTimeoutMs: "300" })
  })

  test("takes a prom-client registry; its metrics render asynchronously", () => {
    expect(createProxy).type.toBeCallableWith({ upstream: "http://x", metricsRegistry: new Registry() })
    expect(createProxy).type.not.toBeCallableWith({ upstream: "http://x", metricsRegistry: {} })
    expect(createProxyMetrics({ registry: new Registry() }).render()).type.toBe<Promise<string>>()
    expect<AddedLatencyPhase>().type.toBe<"request" | "recovery">()
  })

  test("reads its /metrics text back as samples with labels by name", () => {
    expect(parseMetricSamples("up 1")).type.toBe<MetricSample[]>()
    expect<MetricSample["labels"]>().type.toBe<ReadonlyMap<string, string>>()
    expect<MetricSample["value"]>().type.toBe<number>()
    expect(parseMetricSamples).type.not.toBeCallableWith(Buffer.from("up 1"))
  })

  test("names its protocols and leak outcomes", () => {
    expect<ProtocolName>().type.toBe<"chat" | "responses" | "messages">()
    expect<"recovered">().type.toBeAssignableTo<LeakOutcome>()
    expect<"not-offered">().type.toBeAssignableTo<LeakOutcome>()
    expect<"recoverable">().type.not.toBeAssignableTo<LeakOutcome>()
  })
})

describe("@tool-rescue/proxy/node", () => {
  test("startProxyServer resolves with the server and its base URL", () => {
    expect(startProxyServer({ upstream: "http://127.0.0.1:11434/v1", port: 0 })).type.toBe<
      Promise<ProxyServer>
    >()
    expect<ProxyServer["url"]>().type.toBe<string>()
  })

  test("createFailedLog is a persistFailed hook", () => {
    expect(createFailedLog("failed.jsonl")).type.toBeAssignableTo<
      NonNullable<ProxyOptions["persistFailed"]>
    >()
  })
})
