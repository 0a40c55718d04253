/**
 * `.terraformignore`, read exactly as HashiCorp's slug packer reads it (github.com/hashicorp/go-slug,
 * internal/ignorefiles), so a directory packs here to the files `terraform` would upload through the `cloud`
 * block. Written out rather than taken from a gitignore library (npm `ignore`): go-slug is not gitignore. A
 * pattern with a slash in the middle is not anchored (`foo/*.md` also matches `a/foo/x.md`), a pattern without
 * a trailing slash that names a directory leaves the directory's files in (only `name/` excludes a tree), and
 * the rest of the pattern is a regular expression but for `*`, `**`, `?`, `.`, `$` and `\`. A library with
 * gitignore's rules would upload a different set of files than terraform for the same ignore file.
 *
 * The rules: blank lines and `#` lines are skipped, lines are trimmed; `!` negates; a trailing `/` adds `**`;
 * a leading `/` anchors at the root, else `**​/` is put in front; the last rule that matches decides. Before
 * the file's own rules come go-slug's defaults: `.terraform/` and `.git/` out, `.terraform/modules/` back in.
 */

export interface IgnoreRule {
  /** The pattern as go-slug keeps it (`**​/` in front unless anchored, `**` after a trailing slash). */
  pattern: string;
  negated: boolean;
  /** A negated rule comes after this one: a directory it excludes must still be walked. */
  negationsAfter: boolean;
  /** null: the pattern is no valid expression; go-slug skips such a rule and matches with the rest. */
  regex: RegExp | null;
}

export interface IgnoreVerdict {
  excluded: boolean;
  /** Excluded by a rule with no negation after it: nothing below an excluded directory can come back in. */
  dominating: boolean;
}

const DEFAULT_RULES = ['**/.terraform/**', '!**/.terraform/modules/**', '**/.git/**'];

/** The rules of a `.terraformignore` (undefined: the file is absent, go-slug's defaults alone). */
export function parseTerraformIgnore(content: string | undefined): IgnoreRule[] {
  const raw: Array<{ pattern: string; negated: boolean }> = DEFAULT_RULES.map((line) =>
    line.startsWith('!') ? { pattern: line.slice(1), negated: true } : { pattern: line, negated: false },
  );
  for (const line of (content ?? '').split(/\r?\n/)) {
    let pattern = line.trim();
    if (pattern === '' || pattern.startsWith('#')) continue;
    const negated = pattern.startsWith('!');
    if (negated) pattern = pattern.slice(1);
    if (pattern === '') continue;
    if (pattern.endsWith('/')) pattern += '**';
    pattern = pattern.startsWith('/') ? pattern.slice(1) : `**/${pattern}`;
    raw.push({ pattern, negated });
  }
  return raw.map((rule, index) => ({
    ...rule,
    // go-slug marks every earlier rule when it reads a negation; its first default is marked from the start.
    negationsAfter: index === 0 || raw.slice(index + 1).some((later) => later.negated),
    regex: compile(rule.pattern),
  }));
}

/** Whether the rules exclude `relativePath` (slash-separated; a directory is asked about with a trailing slash too). */
export function ignoreVerdict(rules: readonly IgnoreRule[], relativePath: string): IgnoreVerdict {
  const path = relativePath.normalize('NFC');
  let excluded = false;
  let dominating = false;
  for (const rule of rules) {
    if (!rule.regex?.test(path)) continue;
    excluded = !rule.negated;
    dominating = excluded && !rule.negationsAfter;
  }
  return { excluded, dominating };
}

/** go-slug's translation of a pattern into a regular expression (rule.compile), character for character. */
function compile(pattern: string): RegExp | null {
  const chars = [...pattern.normalize('NFC')];
  let source = '^';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '*') {
      if (chars[i + 1] === '*') {
        i++;
        if (chars[i + 1] === '/') i++;
        source += i + 1 >= chars.length ? '.*' : '(.*/)?';
      } else {
        source += '[^/]*';
      }
    } else if (ch === '?') {
      source += '[^/]';
    } else if (ch === '.' || ch === '$') {
      source += `\\${ch}`;
    } else if (ch === '\\') {
      // A trailing backslash stays one, as go-slug leaves it: it then escapes the closing `$`.
      source += i + 1 < chars.length ? `\\${chars[++i]}` : '\\';
    } else {
      source += ch;
    }
  }
  try {
    return new RegExp(`${source}$`, 'u');
  } catch {
    return null;
  }
}
