import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { storageFailureOf, type StorageFailure } from '../../src/db/storage-failures.js';
import { registerErrorHandler } from '../../src/http/error-handler.js';
import { explainStartupFailure } from '../../src/ops/startup-failure.js';

const coded = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('storage failures: what the database or the OS says when it cannot take writes', () => {
  it('recognises SQLite, PostgreSQL and system codes, and nothing else', () => {
    const cases: Array<[string, StorageFailure['problem'] | undefined]> = [
      ['SQLITE_FULL', 'full'],
      ['SQLITE_READONLY', 'read-only'],
      ['SQLITE_READONLY_DBMOVED', 'read-only'],
      ['SQLITE_IOERR_WRITE', 'io'],
      ['SQLITE_IOERR', 'io'],
      ['SQLITE_CANTOPEN', 'cannot-open'],
      ['53100', 'full'],
      ['25006', 'read-only'],
      ['58030', 'io'],
      ['57P01', 'unreachable'],
      ['08006', 'unreachable'],
      ['ENOSPC', 'full'],
      ['EROFS', 'read-only'],
      ['EIO', 'io'],
      ['SQLITE_CONSTRAINT_UNIQUE', undefined],
      ['SQLITE_BUSY', undefined],
      ['SQLITE_FULLY', undefined],
      ['23505', undefined],
      ['40001', undefined],
      ['FST_ERR_CTP_BODY_TOO_LARGE', undefined],
    ];
    for (const [code, problem] of cases) assert.equal(storageFailureOf(coded(code))?.problem, problem, code);
    assert.equal(storageFailureOf(new Error('no code')), undefined);
    assert.equal(storageFailureOf(null), undefined);
  });

  it('a request the storage refused is 503 JSON:API saying why, and reported; other errors are not', async () => {
    const reported: StorageFailure[] = [];
    const app = Fastify();
    registerErrorHandler(app, { onStorageFailure: (failure) => reported.push(failure) });
    app.get('/disk-full', async () => {
      throw coded('53100', 'could not extend file "base/16384/16385": No space left on device');
    });
    app.get('/bug', async () => {
      throw coded('XX000');
    });
    const full = await app.inject({ method: 'GET', url: '/disk-full' });
    assert.equal(full.statusCode, 503);
    assert.match(String(full.headers['content-type']), /^application\/vnd\.api\+json/);
    const error = full.json().errors[0];
    assert.equal(error.title, 'service unavailable');
    assert.match(error.detail, /disk is full.*try again later/);
    assert.doesNotMatch(error.detail, /base\/16384/, 'no internals');
    assert.deepEqual(reported, [{ problem: 'full', code: '53100' }]);
    assert.equal((await app.inject({ method: 'GET', url: '/bug' })).statusCode, 500);
    assert.equal(reported.length, 1);
  });
});

describe('explainStartupFailure: one line for the operator', () => {
  const sqlite = { databaseUrl: 'sqlite:/var/lib/teamstage/db.sqlite' };
  const postgres = { databaseUrl: 'postgres://teamstage:s3cret@db.internal:5432/teamstage' };

  it('names the file or database, the problem and what to do, on one line', () => {
    const readOnly = explainStartupFailure(coded('SQLITE_READONLY'), sqlite)!;
    assert.match(readOnly, /^cannot write the SQLite database \/var\/lib\/teamstage\/db\.sqlite: it is read-only \(SQLITE_READONLY\)\. Make the file/);
    assert.match(explainStartupFailure(coded('SQLITE_FULL'), sqlite)!, /disk is full.*Free space/);
    const tokenFile = explainStartupFailure(Object.assign(coded('EACCES'), { path: '/data/site-token' }), sqlite)!;
    assert.match(tokenFile, /^cannot write \/data\/site-token: .*\(EACCES\).*TEAMSTAGE_SITE_TOKEN/);
    const standby = explainStartupFailure(coded('25006', 'cannot execute CREATE TABLE in a read-only transaction'), postgres)!;
    assert.match(standby, /^cannot write the PostgreSQL database db\.internal:5432\/teamstage: it is read-only \(25006: cannot execute CREATE TABLE/);
    assert.match(explainStartupFailure(coded('53100', 'could not extend file\n"x"'), postgres)!, /disk is full/);
    assert.match(explainStartupFailure(coded('ECONNREFUSED'), postgres)!, /cannot connect to the PostgreSQL database db\.internal:5432\/teamstage: the connection was refused/);
    for (const line of [readOnly, tokenFile, standby, explainStartupFailure(coded('53100', 'a\nb'), postgres)!]) {
      assert.doesNotMatch(line, /\n/);
      assert.doesNotMatch(line, /s3cret|teamstage@/);
    }
  });

  it('leaves anything else alone (a bug keeps its stack trace)', () => {
    assert.equal(explainStartupFailure(new TypeError('x is undefined'), sqlite), undefined);
    assert.equal(explainStartupFailure(coded('SQLITE_CONSTRAINT_UNIQUE'), sqlite), undefined);
    assert.equal(explainStartupFailure(coded('ECONNREFUSED'), sqlite), undefined);
  });
});
