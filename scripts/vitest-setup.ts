import fc from "fast-check"

// One fast-check seed per run, printed so that a failure can be replayed:
//   FC_SEED=<seed> pnpm test
// FC_NUM_RUNS raises or lowers the number of runs of every property.
const seed =
  process.env.FC_SEED === undefined
    ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0
    : Number(process.env.FC_SEED)
if (process.env.FC_SEED === undefined) {
  process.env.FC_SEED = String(seed)
  console.info(`fast-check seed: ${seed} (replay with FC_SEED=${seed})`)
}
fc.configureGlobal({
  seed,
  ...(process.env.FC_NUM_RUNS === undefined ? {} : { numRuns: Number(process.env.FC_NUM_RUNS) }),
})
