import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { nowIso } from '../src/core/clock.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { newId } from '../src/core/ids.js';
import { generateToken, hashToken } from '../src/identity/token-secrets.js';
import { createServices } from '../src/services.js';
import { noAccess } from '../src/access/organization-access.js';

export interface Seeded {
  organization: string;
  ownerToken: string;
  /** A team in the middle of the name order, for show. */
  sampleTeamId: string;
  sampleTeamName: string;
}

/** The seed's team names: `team-` and the index in six digits (a fixed width, which bench/limit relies on). */
export const seedTeamName = (index: number) => `team-${String(index).padStart(6, '0')}`;

/**
 * Distinct `q` values over the seeded names that match a handful of teams each: the first five of an
 * index's six digits. `00123` matches team-001230 … team-001239 and team-000123 (10 or 11 teams, fewer
 * than a page holds, up to 900,000 teams).
 */
export function seedTeamQueries(teamCount: number): string[] {
  const queries: string[] = [];
  for (let index = 0; index < teamCount; index += 10) queries.push(seedTeamName(index).slice('team-'.length, 'team-'.length + 5));
  return queries;
}

/**
 * An organization with `teamCount` teams, written straight to the database (creating 100,000 teams
 * through the API would take longer than the benchmark). The owner and organization go through the
 * real services, so they are exactly what the API would have made.
 */
export async function seedOrganization(databaseUrl: string, teamCount: number): Promise<Seeded> {
  const handle = openDatabase(databaseUrl);
  await migrateToLatest(handle);
  const config = loadConfig({ DATABASE_URL: databaseUrl, TEAMSTAGE_JOBS: 'off' });
  const services = createServices(handle, config, pino({ level: 'silent' }));
  const suffix = randomBytes(4).toString('hex');
  const userId = newId('user');
  await handle.db
    .insertInto('users')
    .values({ id: userId, username: `owner${suffix}`, username_lower: `owner${suffix}`, email: `o${suffix}@bench.test`, email_lower: `o${suffix}@bench.test`, is_service_account: 0, service_account_owner: null, created_at: nowIso() })
    .execute();
  const ownerToken = generateToken();
  await handle.db
    .insertInto('tokens')
    .values({ id: newId('at'), kind: 'user', token_hash: hashToken(ownerToken), user_id: userId, organization_name: null, team_id: null, is_legacy: 0, description: null, created_by_id: userId, created_at: nowIso(), expired_at: null, last_used_at: null, acts_as_person: 1 })
    .execute();
  const organization = `bench${suffix}`;
  await services.organizationsService.create(
    { kind: 'user', tokenId: 'seed', userId, username: `owner${suffix}` },
    { name: organization, email: `ops@${organization}.test` },
  );
  const access = JSON.stringify(noAccess());
  const now = nowIso();
  const batchSize = handle.dialect === 'sqlite' ? 500 : 1000;
  let sampleTeamId = '';
  let sampleTeamName = '';
  for (let start = 0; start < teamCount; start += batchSize) {
    const rows = [];
    for (let i = start; i < Math.min(teamCount, start + batchSize); i++) {
      const name = seedTeamName(i);
      const id = newId('team');
      if (i === Math.floor(teamCount / 2)) {
        sampleTeamId = id;
        sampleTeamName = name;
      }
      rows.push({
        id,
        organization_name: organization,
        name,
        name_lower: name,
        sso_team_id: null,
        visibility: i % 2 === 0 ? ('organization' as const) : ('secret' as const),
        allow_member_token_management: 1 as const,
        organization_access: access,
        is_owners: 0 as const,
        service_account_user_id: null,
        created_at: now,
        updated_at: now,
      });
    }
    await handle.db.insertInto('teams').values(rows).execute();
  }
  await services.stop();
  await handle.close();
  return { organization, ownerToken, sampleTeamId, sampleTeamName };
}
