import { nowIso } from '../core/clock.js';
import { isUniqueViolation } from '../db/database.js';
import { Errors } from '../core/errors.js';
import { requirePersonalAccess } from '../access/require-access.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import { checkEmail } from './email.js';
import { nameProblem } from '../core/team-name.js';
import { newId } from '../core/ids.js';
import type { Principal } from '../core/principal.js';
import { isReservedUsername, RESERVED_USERNAME_DETAIL } from './service-account-names.js';
import { ensureServiceAccount } from './service-accounts.js';
import type { UserRow, UsersRepository } from './users.repository.js';

/** Who the caller is, as a user (`GET /account/details`). */
export interface AccountDetails {
  user: UserRow;
  isSiteAdmin: boolean;
}

/** Site-admin user management and "who am I". */
export class UsersService {
  constructor(private readonly users: UsersRepository) {}

  async create(principal: Principal, input: { username: string; email: string }): Promise<UserRow> {
    requirePersonalAccess(principal, 'administer-site');
    const problem = nameProblem(input.username);
    if (problem) throw Errors.invalidUsername(problem);
    if (isReservedUsername(input.username)) throw Errors.reservedUsername(RESERVED_USERNAME_DETAIL);
    checkEmail(input.email, '/data/attributes/email');
    const row = {
      id: newId('user'),
      username: input.username,
      username_lower: input.username.toLowerCase(),
      email: input.email,
      email_lower: input.email.toLowerCase(),
      is_service_account: 0 as const,
      service_account_owner: null,
      created_at: nowIso(),
    };
    try {
      await this.users.insert(row);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const pointer = (await this.users.findByUsername(input.username)) ? 'username' : 'email';
      throw Errors.userAttributeTaken(pointer);
    }
    return row;
  }

  /**
   * The site admin's user list (HCP Enterprise's admin API): `q` matches username or email, case-insensitive.
   * `filter[admin]` and `filter[suspended]`: here the site admin is a token, not a user, and no user is ever
   * suspended, so `true` matches nobody and `false` everybody.
   */
  async list(principal: Principal, page: PageRequest, options: { q?: string; admin?: boolean; suspended?: boolean } = {}): Promise<Page<UserRow>> {
    requirePersonalAccess(principal, 'administer-site');
    if (options.admin === true || options.suspended === true) return pageOf(page, [], 0);
    const { rows, total } = await this.users.list(page.offset, page.size, options.q ? options.q.toLowerCase() : undefined);
    return pageOf(page, rows, total);
  }

  /**
   * HCP's `PATCH /account/update`: the caller changes their own username or email (only what is sent). Names
   * follow the user rules (reserved service account names refused); both stay unique ignoring case (422).
   * Teamstage sends no confirmation mail: a new email applies at once.
   */
  async updateOwnAccount(principal: Principal, input: { username?: string; email?: string }): Promise<UserRow> {
    requirePersonalAccess(principal, 'update-own-account');
    const userId = (principal as Extract<Principal, { kind: 'user' }>).userId;
    const changes: Parameters<UsersRepository['updateAccount']>[1] = {};
    if (input.username !== undefined) {
      const problem = nameProblem(input.username);
      if (problem) throw Errors.invalidUsername(problem);
      if (isReservedUsername(input.username)) throw Errors.reservedUsername(RESERVED_USERNAME_DETAIL);
      changes.username = input.username;
      changes.username_lower = input.username.toLowerCase();
    }
    if (input.email !== undefined) {
      checkEmail(input.email, '/data/attributes/email');
      changes.email = input.email;
      changes.email_lower = input.email.toLowerCase();
    }
    let user: UserRow | undefined;
    try {
      user = await this.users.updateAccount(userId, changes);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const taken = input.username !== undefined && (await this.users.findByUsername(input.username))?.id !== userId;
      throw Errors.userAttributeTaken(taken ? 'username' : 'email');
    }
    if (!user) throw Errors.userNotFound();
    return user;
  }

  /** The caller as a user; tokens that are not a person answer with their service account. */
  async accountDetails(principal: Principal): Promise<AccountDetails> {
    let userId: string;
    switch (principal.kind) {
      case 'user':
        userId = principal.userId;
        break;
      case 'team':
        userId = principal.serviceAccountUserId ?? (await ensureServiceAccount(this.users, { kind: 'team', teamId: principal.teamId }));
        break;
      case 'organization':
        userId = await ensureServiceAccount(this.users, { kind: 'organization', organizationName: principal.organizationName });
        break;
      case 'site-admin':
        userId = await ensureServiceAccount(this.users, { kind: 'site-admin' });
        break;
      case 'agent':
        // An agent token is no account (and reaches only the pipeline protocol, never this route).
        throw Errors.userNotFound();
    }
    const user = await this.users.findById(userId);
    if (!user) throw Errors.userNotFound();
    return { user, isSiteAdmin: principal.kind === 'site-admin' };
  }
}
