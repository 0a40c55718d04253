/** Column types every table shares. One area of the database schema; src/db/schema.ts gathers them. */

export type Flag = 0 | 1;
