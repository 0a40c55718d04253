/**
 * The one import rule of src/ (docs/development.md, "Development"): a module imports only from its own layer and the
 * layers below it. The layers are declared in layers.cjs; this file only turns them into
 * dependency-cruiser rules. `npm test` runs it (test/unit/layers.test.ts), which also checks that every
 * file under src/ belongs to exactly one declared layer.
 */
const { ISLANDS, LEVELS, NEVER_IMPORTED } = require('./layers.cjs');

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A regex matching the files of these declared paths (`'teams/'` a folder, `'app.ts'` a top-level file). */
const pathsRegex = (paths) => `^src/(${paths.map((entry) => (entry.endsWith('/') ? escape(entry) : `${escape(entry)}$`)).join('|')})`;

const layered = LEVELS.flatMap((level, index) =>
  level.map((layer) => ({ ...layer, allowed: [...LEVELS.slice(0, index).flat().flatMap((below) => below.paths), ...layer.paths] })),
);
const byName = new Map([...LEVELS.flat(), ...ISLANDS].map((layer) => [layer.name, layer]));

module.exports = {
  forbidden: [
    ...layered.map((layer) => ({
      name: `${layer.name}-imports-only-below`,
      comment: `${layer.name} imports only from itself and the layers below it (layers.cjs)`,
      severity: 'error',
      from: { path: pathsRegex(layer.paths) },
      // An island's own rule below says who may import it.
      to: { path: '^src/', pathNot: pathsRegex([...layer.allowed, ...ISLANDS.flatMap((island) => island.paths)]) },
    })),
    ...ISLANDS.flatMap((island) => [
      {
        name: `${island.name}-is-an-island`,
        comment: `src/${island.paths.join(', src/')} imports only itself and ${island.imports.join(', ')} (layers.cjs)`,
        severity: 'error',
        from: { path: pathsRegex(island.paths) },
        to: { path: '^src/', pathNot: pathsRegex([...island.paths, ...island.imports.flatMap((name) => byName.get(name).paths)]) },
      },
      {
        name: `only-${island.importedBy.join('-') || 'nothing'}-imports-${island.name}`,
        comment: `only ${island.importedBy.join(', ') || 'nothing'} imports src/${island.paths.join(', src/')} (layers.cjs)`,
        severity: 'error',
        from: { path: '^src/', pathNot: pathsRegex([...island.paths, ...island.importedBy]) },
        to: { path: pathsRegex(island.paths) },
      },
    ]),
    {
      name: 'src-imports-no-tests-or-tools',
      comment: `nothing under src/ imports ${NEVER_IMPORTED.join(', ')}`,
      severity: 'error',
      from: { path: '^src/' },
      to: { path: `^(${NEVER_IMPORTED.map(escape).join('|')})` },
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
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
