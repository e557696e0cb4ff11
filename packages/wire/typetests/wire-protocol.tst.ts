import type { NormalizedPart } from "@tool-rescue/recovery"
import type { TurnRequest } from "@tool-rescue/recovery/adapter"
import { describe, expect, test } from "tstyche"
import {
  type AnyWireProtocol,
  type ChatChunk,
  type ChatCompletion,
  type ChatRaw,
  chatCompletions,
  type ErrorKind,
  type MessageRef,
  type MessagesEvent,
  messages,
  type ResponseEvent,
  type ResponseRef,
  responses,
  type WireProtocol,
} from "../src/index.ts"

describe("the protocol objects", () => {
  test("are typed over their own JSON shapes", () => {
    expect(chatCompletions).type.toBe<WireProtocol<ChatChunk, ChatRaw, ChatCompletion, ChatCompletion>>()
    expect<Parameters<typeof responses.streamParts>[0]>().type.toBe<ResponseEvent>()
    expect<Parameters<typeof responses.dataCallIds>[0]>().type.toBe<ResponseRef>()
    expect<Parameters<typeof messages.streamParts>[0]>().type.toBe<MessagesEvent>()
    expect<Parameters<typeof messages.dataCallIds>[0]>().type.toBe<MessageRef>()
  })

  test("read a request as recovery's TurnRequest", () => {
    expect(chatCompletions.request({}, () => 0)).type.toBe<TurnRequest>()
    expect(messages.streamParts({ type: "ping" })).type.toBe<NormalizedPart<MessagesEvent>[]>()
  })

  test("name an error type for every kind of error, and nothing else", () => {
    expect(messages.errors.types).type.toBe<Readonly<Record<ErrorKind, string>>>()
    expect(chatCompletions.errors.types).type.not.toHaveProperty("teapot")
  })

  test("each one is an AnyWireProtocol, as a front end over parsed JSON holds it", () => {
    expect(chatCompletions).type.toBeAssignableTo<AnyWireProtocol>()
    expect(responses).type.toBeAssignableTo<AnyWireProtocol>()
    expect(messages).type.toBeAssignableTo<AnyWireProtocol>()
  })
})
