/**
 * The id a part of a retry gets in the spliced response: ids of round 0 stay as they are, a
 * retry's get a `-retry<N>` suffix, so that text/reasoning blocks (and any other id the
 * provider numbers per response, such as `txt-0`) stay unique across the attempts of one
 * response.
 *
 * @example
 * ```ts
 * import { retryId } from "@tool-rescue/recovery/adapter"
 *
 * retryId("txt-0", 0) // "txt-0"
 * retryId("txt-0", 1) // "txt-0-retry1"
 * ```
 */
export function retryId(id: string, round: number): string {
  return round === 0 ? id : `${id}-retry${round}`
}
