import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/schema.js';

/** The server's signing keys (migration 027): made once by the first node that needs one, then shared. */
export class SigningKeysRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The key named `name`: created with 32 random bytes if none exists yet (two nodes racing agree on one). */
  async keyFor(name: string): Promise<Buffer> {
    const found = await this.find(name);
    if (found) return found;
    await this.db
      .insertInto('signing_keys')
      .values({ name, secret: randomBytes(32).toString('base64url'), created_at: nowIso() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db.selectFrom('signing_keys').select('secret').where('name', '=', name).executeTakeFirstOrThrow();
    return Buffer.from(row.secret, 'base64url');
  }

  /** The key named `name` if it exists: a URL to check never makes one. */
  async find(name: string): Promise<Buffer | undefined> {
    const found = await this.db.selectFrom('signing_keys').select('secret').where('name', '=', name).executeTakeFirst();
    return found ? Buffer.from(found.secret, 'base64url') : undefined;
  }

  /** Deletes the keys named `<prefix>@<n>` with n below `generation`, and the unrotated `<prefix>` of before. */
  async removeGenerationsBefore(prefix: string, generation: number): Promise<void> {
    const rows = await this.db.selectFrom('signing_keys').select('name').where('name', 'like', `${prefix}@%`).execute();
    const retired = rows.map((row) => row.name).filter((name) => Number(name.slice(prefix.length + 1)) < generation);
    await this.db.deleteFrom('signing_keys').where('name', 'in', [prefix, ...retired]).execute();
  }
}
