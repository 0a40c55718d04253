/**
 * Issue 39: the bundle is kept to ASCII (scripts/bundle-options.mjs keepAscii), so V8 holds its source in one
 * byte per character: one character outside Latin-1 in a comment doubled the 5 MB the process keeps.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
// @ts-expect-error a plain JavaScript build script, without types
import { keepAscii } from '../../scripts/bundle-options.mjs';

describe('the bundle is ASCII', () => {
  it('rewrites what is outside ASCII as escapes: comments keep their sense, strings their value', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-ascii-'));
    try {
      const file = path.join(dir, 'module.mjs');
      fs.writeFileSync(file, "// start → ready, 'quoted' …\nexport const text = 'é → 😀';\n");
      keepAscii(file);
      const rewritten = fs.readFileSync(file, 'utf8');
      assert.match(rewritten, /^[\x00-\x7f]*$/, 'nothing outside ASCII is left');
      const loaded = (await import(pathToFileURL(file).href)) as { text: string };
      assert.equal(loaded.text, 'é → 😀');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
