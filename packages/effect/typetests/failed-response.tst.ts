import type { FailedResponse as RecoveryFailedResponse } from "@tool-rescue/recovery"
import { expect, test } from "tstyche"
import type { FailedResponse } from "../src/index.ts"

test("FailedResponse is recovery's type, re-exported", () => {
  expect<FailedResponse>().type.toBe<RecoveryFailedResponse>()
})
