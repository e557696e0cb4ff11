// Which tarball `pnpm pack` wrote for a package.
import { basename } from "node:path"

/**
 * The tarball of `name` among `packs` (paths): `pnpm pack` names it `<scope>-<name>-<version>.tgz`
 * (`@tool-rescue/effect` → `tool-rescue-effect-0.1.0.tgz`). Matched whole, the version included:
 * a prefix would find `tool-rescue-effect-openai-compat-0.1.0.tgz` for `@tool-rescue/effect`.
 */
export function packFile(packs, name) {
  const stem = name.replace(/^@/, "").replace("/", "-")
  const escaped = stem.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")
  // A semver version: major.minor.patch, then an optional pre-release.
  const file = new RegExp(`^${escaped}-\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?\\.tgz$`)
  const found = packs.filter((pack) => file.test(basename(pack)))
  if (found.length !== 1)
    throw new Error(
      `${found.length === 0 ? "no tarball" : "more than one tarball"} of ${name} in ${packs.join(", ")}`,
    )
  return found[0]
}
