import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exactChangeVersion } from '../../src/cache/cache-switch.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';

describe('TEAMSTAGE_CACHE', () => {
  it('is off by default, takes off or on in any case, and refuses anything else', () => {
    assert.equal(loadConfig({}).cache, 'off');
    assert.equal(loadConfig({ TEAMSTAGE_CACHE: 'ON' }).cache, 'on');
    assert.equal(loadConfig({ TEAMSTAGE_CACHE: 'off' }).cache, 'off');
    for (const value of ['yes', '1', 'true']) assert.throws(() => loadConfig({ TEAMSTAGE_CACHE: value }), (error) => error instanceof ConfigError && error.message.includes('TEAMSTAGE_CACHE'));
  });

  it('caches only when on, and only on SQLite (the one database with an exact change signal)', () => {
    const version = () => '1:1';
    const sqlite = { dialect: 'sqlite', changeVersion: version } as unknown as DatabaseHandle;
    const postgres = { dialect: 'postgres', changeVersion: version } as unknown as DatabaseHandle;
    assert.equal(exactChangeVersion('on', sqlite), version);
    assert.equal(exactChangeVersion('off', sqlite), undefined);
    assert.equal(exactChangeVersion('on', postgres), undefined);
  });
});
