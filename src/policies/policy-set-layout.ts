import type { PolicyLevel } from './policy-outcomes.js';
import { PolicyArchiveProblem } from './policy-archive.js';
import { isLevelOf, LEVELS_OF_KIND, policyNameProblem, type PolicyKind } from './policy-input.js';

/** One policy an uploaded policy set version declares. */
export interface DeclaredPolicy {
  name: string;
  description: string | null;
  /** The OPA query; '' for Sentinel. */
  query: string;
  level: PolicyLevel;
  text: string;
}

interface Block {
  type: string;
  label: string;
  attributes: Map<string, string>;
}

const ATTRIBUTES: Record<PolicyKind, readonly string[]> = { opa: ['query', 'enforcement_level', 'description'], sentinel: ['source', 'enforcement_level', 'description'] };

/**
 * HCP's versioned layout of a policy set, read strictly: an OPA set's `policies.hcl` names each policy
 * (`policy "name" { query = "data.x.deny" enforcement_level = "mandatory" }`) and its Rego is `name.rego` beside
 * it; a Sentinel set's `sentinel.hcl` names each policy with its `source` file. Only `policy` blocks of string
 * attributes are read (no modules, params, expressions or heredocs): anything else is refused with where it is.
 */
export function declaredPolicies(kind: PolicyKind, files: ReadonlyMap<string, string>): DeclaredPolicy[] {
  const hclName = kind === 'opa' ? 'policies.hcl' : 'sentinel.hcl';
  const hcl = files.get(hclName);
  if (hcl === undefined) throw new PolicyArchiveProblem(`the archive has no ${hclName} at its root; a ${kind} policy set version names its policies there`);
  const seen = new Set<string>();
  return parseBlocks(hcl, hclName).map((block) => {
    if (block.type !== 'policy') throw new PolicyArchiveProblem(`${hclName}: only policy blocks are read, not ${block.type}`);
    const problem = policyNameProblem(block.label);
    if (problem) throw new PolicyArchiveProblem(`${hclName}: policy ${JSON.stringify(block.label)}: ${problem}`);
    if (seen.has(block.label)) throw new PolicyArchiveProblem(`${hclName}: policy ${block.label} is declared twice`);
    seen.add(block.label);
    for (const key of block.attributes.keys()) {
      if (!ATTRIBUTES[kind].includes(key)) throw new PolicyArchiveProblem(`${hclName}: policy ${block.label}: unknown attribute ${key}`);
    }
    const level = block.attributes.get('enforcement_level') ?? 'advisory';
    if (!isLevelOf(kind, level)) throw new PolicyArchiveProblem(`${hclName}: policy ${block.label}: enforcement_level is ${LEVELS_OF_KIND[kind].join(' or ')}, not ${JSON.stringify(level)}`);
    const query = kind === 'opa' ? block.attributes.get('query') ?? '' : '';
    if (kind === 'opa' && query.trim() === '') throw new PolicyArchiveProblem(`${hclName}: policy ${block.label} needs its query (e.g. data.terraform.deny)`);
    const path = kind === 'opa' ? `${block.label}.rego` : normalizedSource(block.attributes.get('source'), block.label);
    const text = files.get(path);
    if (text === undefined) throw new PolicyArchiveProblem(`${hclName}: policy ${block.label}: the archive has no ${path}`);
    return { name: block.label, description: block.attributes.get('description') ?? null, query, level, text };
  });
}

function normalizedSource(source: string | undefined, policy: string): string {
  if (source === undefined) throw new PolicyArchiveProblem(`sentinel.hcl: policy ${policy} needs its source`);
  const segments = source.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (source.startsWith('/') || segments.includes('..') || /^[a-z]+::|:\/\//.test(source)) {
    throw new PolicyArchiveProblem(`sentinel.hcl: policy ${policy}: the source must be a file in the archive, not ${JSON.stringify(source)}`);
  }
  return segments.join('/');
}

/** Tokens of the HCL subset: identifiers, quoted strings, `=`, `{`, `}`; comments (#, //, /* *\/) and whitespace skipped. */
function tokens(text: string, file: string): Array<{ kind: 'ident' | 'string' | 'punct'; value: string; line: number }> {
  const out: Array<{ kind: 'ident' | 'string' | 'punct'; value: string; line: number }> = [];
  let i = 0;
  let line = 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') { line++; i++; continue; }
    if (/\s/.test(c)) { i++; continue; }
    if (c === '#' || text.startsWith('//', i)) { while (i < text.length && text[i] !== '\n') i++; continue; }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new PolicyArchiveProblem(`${file}:${line}: unterminated comment`);
      line += text.slice(i, end).split('\n').length - 1;
      i = end + 2;
      continue;
    }
    if (c === '=' || c === '{' || c === '}') { out.push({ kind: 'punct', value: c, line }); i++; continue; }
    if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        const d = text[i];
        if (d === undefined || d === '\n') throw new PolicyArchiveProblem(`${file}:${line}: unterminated string`);
        if (d === '"') break;
        if (d === '\\') {
          const escaped = text[i + 1];
          const map: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\' };
          if (escaped === undefined || !(escaped in map)) throw new PolicyArchiveProblem(`${file}:${line}: unsupported escape in a string`);
          value += map[escaped];
          i += 2;
          continue;
        }
        if (d === '$' && text[i + 1] === '{') throw new PolicyArchiveProblem(`${file}:${line}: interpolation is not supported; write plain strings`);
        value += d;
        i++;
      }
      i++;
      out.push({ kind: 'string', value, line });
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i, i + 200));
    if (!ident) throw new PolicyArchiveProblem(`${file}:${line}: unexpected ${JSON.stringify(c)}; only policy blocks of quoted string attributes are read`);
    out.push({ kind: 'ident', value: ident[0], line });
    i += ident[0].length;
  }
  return out;
}

function parseBlocks(text: string, file: string): Block[] {
  const list = tokens(text, file);
  const blocks: Block[] = [];
  let i = 0;
  const expect = (kind: 'ident' | 'string' | 'punct', value?: string) => {
    const token = list[i];
    if (!token || token.kind !== kind || (value !== undefined && token.value !== value)) {
      const where = token ? `${file}:${token.line}` : `${file}: at the end`;
      throw new PolicyArchiveProblem(`${where}: expected ${value ? JSON.stringify(value) : `a ${kind === 'ident' ? 'name' : kind}`}${token ? `, found ${JSON.stringify(token.value)}` : ''}`);
    }
    i++;
    return token.value;
  };
  while (i < list.length) {
    const type = expect('ident');
    const label = expect('string');
    expect('punct', '{');
    const attributes = new Map<string, string>();
    while (list[i] && !(list[i]!.kind === 'punct' && list[i]!.value === '}')) {
      const key = expect('ident');
      expect('punct', '=');
      if (attributes.has(key)) throw new PolicyArchiveProblem(`${file}:${list[i - 1]!.line}: ${key} is set twice`);
      attributes.set(key, expect('string'));
    }
    expect('punct', '}');
    blocks.push({ type, label, attributes });
  }
  return blocks;
}
