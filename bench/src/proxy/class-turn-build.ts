/**
 * Builds the class-based turn of commit 6efbb86 (the last before `runTurn` became an async
 * generator again) for the `proxy-turn` suite: `packages/recovery/src` at that commit, bundled
 * from git by {@link buildFromGit} (its bare imports resolve to the bench's own
 * `@tool-rescue/detector`).
 */
import { buildFromGit } from "../build-from-git.ts"

export const CLASS_TURN_COMMIT = "6efbb86"

/** The bundle's file URL. */
export function buildClassTurn(): Promise<string> {
  return buildFromGit("recovery", CLASS_TURN_COMMIT)
}
