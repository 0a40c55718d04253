/**
 * The one import rule of src/ (README "Development"): a module imports only from layers below it.
 *
 *   core < db < access < jobs, outbound < identity < organizations < teams < workspaces < runtasks
 *        < runs < taskstages < delivery < http, ops, app.ts, services.ts, config.ts, main.ts, cli.ts
 *
 * A lower domain that needs a higher one owns a port (an interface or hook) or a job kind, and the
 * higher one plugs into it in services.ts. `npm test` runs this check (test/unit/layers.test.ts).
 */
const DOMAINS = ['identity', 'organizations', 'teams', 'workspaces', 'runtasks', 'runs', 'taskstages', 'delivery'];
const TOP = '^src/(http|ops)/|^src/(app|services|config|main|cli)\\.ts$';

const layers = [
  // The rules shared with the console and the pipeline client: dependency-free, so a browser bundle can hold them.
  { name: 'shared', path: '^src/shared/', above: '^src/(?!shared/)' },
  { name: 'core', path: '^src/core/', above: '^src/(?!(core|shared)/)' },
  { name: 'db', path: '^src/db/', above: `^src/(access|jobs|outbound|${DOMAINS.join('|')})/|${TOP}` },
  { name: 'access', path: '^src/access/', above: `^src/(jobs|outbound|${DOMAINS.join('|')})/|${TOP}` },
  { name: 'jobs', path: '^src/jobs/', above: `^src/(outbound|${DOMAINS.join('|')})/|${TOP}` },
  { name: 'outbound', path: '^src/outbound/', above: `^src/(jobs|${DOMAINS.join('|')})/|${TOP}` },
  ...DOMAINS.map((domain, index) => ({
    name: domain,
    path: `^src/${domain}/`,
    above: [DOMAINS.slice(index + 1).length ? `^src/(${DOMAINS.slice(index + 1).join('|')})/` : null, TOP].filter(Boolean).join('|'),
  })),
];

module.exports = {
  forbidden: [
    ...layers.map((layer) => ({
      name: `${layer.name}-imports-only-below`,
      comment: `${layer.name} may import only from the layers below it`,
      severity: 'error',
      from: { path: layer.path },
      to: { path: layer.above },
    })),
    // src/pipeline is the CLI's HTTP client side (`teamstage pipeline …`): it talks to a server over the
    // API like any pipeline would, so it may use only core, and only cli.ts may reach it.
    {
      name: 'pipeline-imports-only-core',
      comment: 'the pipeline client imports only src/core and src/shared (and itself)',
      severity: 'error',
      from: { path: '^src/pipeline/' },
      to: { path: '^src/(?!(core|shared|pipeline)/)' },
    },
    {
      name: 'pipeline-is-a-top-layer',
      comment: 'nothing but cli.ts imports the pipeline client',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(pipeline/|cli\\.ts$)' },
      to: { path: '^src/pipeline/' },
    },
    // The web console (src/web) runs in a browser and knows the server only through /api/v2, like any client:
    // it imports nothing from the server's sources but the shared rules (src/shared), and they import nothing from it.
    {
      name: 'web-is-an-island',
      comment: 'src/web may import only from src/web, the dependency-free src/shared (and npm packages)',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/(?!(web|shared)/)' },
    },
    {
      name: 'nothing-imports-web',
      comment: 'the server does not import the web console',
      severity: 'error',
      from: { path: '^src/(?!web/)' },
      to: { path: '^src/web/' },
    },
    {
      name: 'no-circular',
      comment: 'modules import each other in one direction only',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
