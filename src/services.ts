import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { StandingRepository } from './authz/standing.repository.js';
import { Authenticator } from './identity/authenticate.js';
import { TokensRepository } from './identity/tokens.repository.js';
import { TokensService } from './identity/tokens.service.js';
import { UsersRepository } from './identity/users.repository.js';
import { UsersService } from './identity/users.service.js';
import { MembershipsRepository } from './organizations/memberships.repository.js';
import { MembershipsService } from './organizations/memberships.service.js';
import { OrganizationGate } from './organizations/organization-gate.js';
import { OrganizationsRepository } from './organizations/organizations.repository.js';
import { OrganizationsService } from './organizations/organizations.service.js';
import { TeamMembersService } from './teams/team-members.service.js';
import { TeamsRepository } from './teams/teams.repository.js';
import { TeamsService } from './teams/teams.service.js';
import { Jobs } from './jobs/jobs.js';

/**
 * The object graph, wired by hand in one place: every repository gets the database, every service
 * gets what it calls. Background workers register a stop function so shutdown can release their claims.
 */
export function createServices(handle: DatabaseHandle, config: Config, log: FastifyBaseLogger) {
  const db = handle.db;
  const tokens = new TokensRepository(db);
  const users = new UsersRepository(db);
  const organizations = new OrganizationsRepository(db);
  const memberships = new MembershipsRepository(db);
  const teams = new TeamsRepository(db);
  const standings = new StandingRepository(db);
  const gate = new OrganizationGate(organizations, standings);
  const teamsService = new TeamsService(teams, users, memberships, gate);
  const stopFunctions: Array<() => Promise<void>> = [];
  const jobs = new Jobs(
    handle,
    {
      concurrency: config.jobs.concurrency,
      pollMs: config.jobs.pollSeconds * 1000,
      leaseMs: config.jobs.leaseSeconds * 1000,
      databaseUrl: config.databaseUrl,
    },
    log,
  );

  return {
    config,
    handle,
    log,
    repositories: { tokens, users, organizations, memberships, teams, standings },
    gate,
    jobs,
    authenticator: new Authenticator(db, tokens),
    usersService: new UsersService(users),
    organizationsService: new OrganizationsService(db, organizations, gate, standings, config.defaultFeatureSet),
    membershipsService: new MembershipsService(memberships, users, teams, teamsService, gate),
    teamsService,
    teamMembersService: new TeamMembersService(teamsService, teams, users, memberships),
    tokensService: new TokensService(tokens, users, teams, teamsService, gate),
    onStop(stop: () => Promise<void>) {
      stopFunctions.push(stop);
    },
    /** Workers first (they finish in-flight jobs with everything still up), then the rest in reverse order. */
    async stop() {
      await jobs.stop();
      for (const stop of stopFunctions.reverse()) await stop();
    },
  };
}

export type Services = ReturnType<typeof createServices>;
