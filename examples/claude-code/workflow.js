// A Claude Code workflow script: one agent per service, each in its own worktree.
// With `wtc hooks install claude`, every `isolation: 'worktree'` agent below is a wtc task of this
// session's run: pinned base, boundary (from `wtc plan`), .env/node_modules/ports ready, and its
// work merged into wtc/<run>/integration as soon as it finishes. Land the run with
// `wtc report --run RUN --onto main` and `wtc land --run RUN --onto main`.
export const meta = {
  name: 'add-health-endpoints',
  description: 'One agent per service adds a /health endpoint with a test',
  phases: [{ title: 'Implement' }, { title: 'Review' }],
}

const SERVICES = ['api', 'web', 'billing', 'search']

const done = await pipeline(
  SERVICES,
  s => agent(
    `In packages/${s}/, add a GET /health endpoint returning {"ok": true} and a test for it. ` +
    `Run the package's tests. Source .wtc/env first and use $WTC_PORT_BASE for any server you start.`,
    { label: `health:${s}`, phase: 'Implement', isolation: 'worktree' },
  ),
  (result, s) => agent(
    `Review the /health endpoint just added in packages/${s}/ and list any problem you find.`,
    { label: `review:${s}`, phase: 'Review' },
  ),
)

return { reviews: done.filter(Boolean) }
