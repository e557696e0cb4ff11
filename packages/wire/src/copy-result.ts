/**
 * A shallow copy of an SDK result with `fields` set. The SDK's `_request_id` is non-enumerable,
 * so a spread drops it: it is carried over as it was.
 */
export function copyResult<T extends object>(from: T, fields: object): T {
  const to = { ...from, ...fields }
  const id = (from as { _request_id?: unknown })._request_id
  if (id !== undefined) Object.defineProperty(to, "_request_id", { value: id, enumerable: false })
  return to
}
