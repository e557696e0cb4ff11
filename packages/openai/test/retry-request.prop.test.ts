/**
 * Properties of the retry's request options: the caller's options without the idempotency key,
 * with the turn's signal. (The retry bodies are `@tool-rescue/wire`'s, tested there.)
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { retryRequestOptions } from "../src/retry-request.ts"

const text = fc.string({ maxLength: 20 })

describe("retryRequestOptions", () => {
  const headerName = fc.constantFrom(
    "Idempotency-Key",
    "idempotency-key",
    "IDEMPOTENCY-KEY",
    "X-Trace",
    "Accept",
  )
  const headers = fc.dictionary(headerName, text, { maxKeys: 4 })

  test.prop([headers, fc.option(text, { nil: undefined }), fc.nat()])(
    "drops the idempotency key (option and header), keeps every other option, uses the turn's signal",
    (hdrs, key, timeout) => {
      const options = {
        headers: hdrs,
        timeout,
        maxRetries: 1,
        ...(key === undefined ? {} : { idempotencyKey: key }),
      }
      const signal = new AbortController().signal
      const retry = retryRequestOptions(options, signal)
      expect(retry.signal).toBe(signal)
      expect("idempotencyKey" in retry).toBe(false)
      expect(retry.timeout).toBe(timeout)
      expect(retry.maxRetries).toBe(1)
      const kept = Object.fromEntries(
        Object.entries(hdrs).filter(([name]) => name.toLowerCase() !== "idempotency-key"),
      )
      expect(retry.headers).toEqual(kept)
      expect(options.headers).toBe(hdrs)
    },
  )
})
