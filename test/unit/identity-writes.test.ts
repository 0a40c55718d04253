import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mayChangeIdentity } from '../../src/db/identity-writes.js';

describe('which statements may change what authentication and standings read', () => {
  it('reads and transaction control do not', () => {
    for (const sql of ['select * from "tokens" where "token_hash" = $1', '  SELECT 1', 'begin', 'commit', 'rollback', 'savepoint a', 'release savepoint a']) {
      assert.equal(mayChangeIdentity(sql), false, sql);
    }
  });

  it('writes to the identity tables do, under any quoting or case', () => {
    for (const sql of [
      'delete from "tokens" where "id" = $1',
      'update "teams" set "organization_access" = $1 where "id" = $2',
      'insert into "team_memberships" ("team_id") values ($1)',
      'DELETE FROM organization_memberships WHERE id = $1',
      'update "organizations" set "feature_set" = $1',
      'insert into "users" ("id") values ($1)',
    ]) {
      assert.equal(mayChangeIdentity(sql), true, sql);
    }
  });

  it('writes to other tables do not', () => {
    for (const sql of ['insert into "jobs" ("id") values ($1) on conflict do nothing', 'update "runs" set "status" = $1', 'delete from "task_results" where "id" = $1']) {
      assert.equal(mayChangeIdentity(sql), false, sql);
    }
  });

  it('a plain insert of a new team does not, one that may update an existing team does', () => {
    assert.equal(mayChangeIdentity('insert into "teams" ("id", "name") values ($1, $2)'), false);
    assert.equal(mayChangeIdentity('insert into "teams" ("id", "name") values ($1, $2), ($3, $4) on conflict ("organization_name", "name_lower") do nothing returning "id"'), false);
    assert.equal(mayChangeIdentity('insert into "teams" ("id") values ($1) on conflict ("id") do update set "name" = $2'), true);
  });

  it('a statement whose target cannot be named is assumed to', () => {
    for (const sql of ['alter table "tokens" add column "x" text', 'truncate "users" cascade']) {
      assert.equal(mayChangeIdentity(sql), true, sql);
    }
  });

  it('a statement with data-modifying WITH does if any table it writes is an identity table', () => {
    for (const sql of [
      'with gone as (delete from "tokens" returning 1) select count(*) from gone',
      'with "r" as (update "runs" set "status" = $1 returning "id") update "teams" set "name" = $2',
      'WITH x AS (INSERT INTO users (id) VALUES ($1) RETURNING id) INSERT INTO jobs (id) SELECT id FROM x',
    ]) {
      assert.equal(mayChangeIdentity(sql), true, sql);
    }
    for (const sql of [
      'with "pending" as (update "task_results" set "access_token_hash" = $1 where "id" = $2 returning "id"), "token" as (insert into "task_result_access_tokens" ("token_hash") select $1 from "pending") insert into "delivery_attempts" ("id") select $3 from "pending" on conflict ("task_result_id", "attempt") do update set "url" = excluded."url" returning "id"',
      'with "refreshed" as (update "task_results" set "updated_at" = $1 returning "id") insert into "jobs" ("id") select $2 from "refreshed" on conflict ("dedupe_key") do update set "run_at" = excluded."run_at"',
      'with "recent" as (select "id" from "runs") select * from "recent"',
    ]) {
      assert.equal(mayChangeIdentity(sql), false, sql);
    }
  });
});
