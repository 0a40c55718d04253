import type { Kysely } from 'kysely';
import { codePointOrder } from '../db/ordering.js';
import { containsText } from '../db/like.js';
import type { Database, UsersTable } from '../db/schema.js';

export type UserRow = UsersTable;

const USER_COLUMNS = ['id', 'username', 'username_lower', 'email', 'email_lower', 'is_service_account', 'service_account_owner', 'created_at'] as const;

export class UsersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: UserRow): Promise<void> {
    await this.db.insertInto('users').values(row).execute();
  }

  /** A person's own username and email (`PATCH /account/update`); the row as written. */
  async updateAccount(id: string, changes: Partial<Pick<UserRow, 'username' | 'username_lower' | 'email' | 'email_lower'>>): Promise<UserRow | undefined> {
    if (Object.keys(changes).length > 0) await this.db.updateTable('users').set(changes).where('id', '=', id).where('is_service_account', '=', 0).execute();
    return this.findById(id);
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').select(USER_COLUMNS).where('username_lower', '=', username.toLowerCase()).executeTakeFirst();
  }

  /** A service account by its flag and owner key (service-account-names.ts), never by its name. */
  findServiceAccount(ownerKey: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('is_service_account', '=', 1)
      .where('service_account_owner', '=', ownerKey)
      .executeTakeFirst();
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').select(USER_COLUMNS).where('email_lower', '=', email.toLowerCase()).executeTakeFirst();
  }

  async findManyByIds(ids: readonly string[]): Promise<UserRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('users').select(USER_COLUMNS).where('id', 'in', [...ids]).execute();
  }

  /** People (never service accounts), by username; `search`: a lower-cased substring of the username or email. */
  async list(offset: number, limit: number, search?: string): Promise<{ rows: UserRow[]; total: number }> {
    const people = this.db
      .selectFrom('users')
      .where('is_service_account', '=', 0)
      .$if(search !== undefined, (query) =>
        query.where((eb) => eb.or([containsText(eb.ref('username_lower'), search!), containsText(eb.ref('email_lower'), search!)])),
      );
    const rows = await people.select(USER_COLUMNS).orderBy(codePointOrder(this.db, 'username_lower')).limit(limit).offset(offset).execute();
    const count = await people.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }
}
