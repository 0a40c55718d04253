import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/schema.js';

/** The server's signing keys (migration 027): made once by the first node that needs one, then shared. */
export class SigningKeysRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The key named `name`: created with 32 random bytes if none exists yet (two nodes racing agree on one). */
  async keyFor(name: string): Promise<Buffer> {
    const found = await this.db.selectFrom('signing_keys').select('secret').where('name', '=', name).executeTakeFirst();
    if (found) return Buffer.from(found.secret, 'base64url');
    await this.db
      .insertInto('signing_keys')
      .values({ name, secret: randomBytes(32).toString('base64url'), created_at: nowIso() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db.selectFrom('signing_keys').select('secret').where('name', '=', name).executeTakeFirstOrThrow();
    return Buffer.from(row.secret, 'base64url');
  }
}
