/**
 * The layers of src/ (docs/development.md, "Development"), lowest first: the one declaration that
 * .dependency-cruiser.cjs turns into import rules and test/unit/layers.test.ts checks every file against.
 *
 * Every file under src/ belongs to exactly one layer, by its folder (`'teams/'`) or, at the top of src/,
 * by its name (`'app.ts'`). A module imports only from its own layer and the levels below it; layers of
 * one level (jobs and outbound) do not import each other. A new folder or top-level file is declared here
 * first: add it to the layer it belongs to, or add a layer at its place in LEVELS (a domain goes after the
 * domains it imports and before those that import it), and to the list in docs/development.md. An undeclared one fails
 * `npm test`.
 */

/** The domains, in their order: each may import the ones before it, never one after it. `record` (run events and comments) comes first: every domain writes to it. */
const DOMAINS = ['record', 'identity', 'organizations', 'teams', 'projects', 'workspaces', 'teamaccess', 'agentpools', 'runtasks', 'policies', 'runs', 'taskstages', 'delivery'];

/** @type {Array<Array<{ name: string, paths: string[] }>>} */
const LEVELS = [
  // Dependency-free rules the server shares with the console and the pipeline client.
  [{ name: 'shared', paths: ['shared/'] }],
  [{ name: 'core', paths: ['core/'] }],
  [{ name: 'db', paths: ['db/'] }],
  [{ name: 'access', paths: ['access/'] }],
  [
    { name: 'jobs', paths: ['jobs/'] },
    { name: 'outbound', paths: ['outbound/'] },
  ],
  ...DOMAINS.map((domain) => [{ name: domain, paths: [`${domain}/`] }]),
  [{ name: 'top', paths: ['http/', 'ops/', 'app.ts', 'services.ts', 'config.ts', 'config-values.ts', 'config-policies.ts', 'main.ts', 'cli.ts'] }],
];

/**
 * Clients of the API that live in src/ but talk to the server over HTTP, as any client would: each imports
 * only itself and `imports`, and only `importedBy` imports it.
 * @type {Array<{ name: string, paths: string[], imports: string[], importedBy: string[] }>}
 */
const ISLANDS = [
  // `teamstage pipeline …`, reached only through cli.ts.
  { name: 'pipeline', paths: ['pipeline/'], imports: ['core', 'shared'], importedBy: ['cli.ts'] },
  // The console, built for the browser and served at /app.
  { name: 'web', paths: ['web/'], imports: ['shared'], importedBy: [] },
];

/** Folders next to src/ that src/ never imports: tests, benchmarks, build scripts and examples. */
const NEVER_IMPORTED = ['test/', 'bench/', 'scripts/', 'examples/'];

module.exports = { DOMAINS, LEVELS, ISLANDS, NEVER_IMPORTED };
