import type { ServerResponse } from 'node:http';

/**
 * A page of the team list with `q`, as the limit servers answer it: the stored bytes of the matching teams
 * inside Teamstage's list envelope. The envelope (the links and pagination after the data array) is cut
 * from one recorded Teamstage answer, with the origin, the query and the total count left as slots, so the
 * limit sends Teamstage's bytes without a copy of its pagination rules. The bench asks for single pages
 * only (every query matches fewer teams than a page holds), which is what makes one envelope enough.
 */
export const LIST_PAGE_SIZE = 20; // Teamstage's default page size; the bench's requests name none

// Control characters, which JSON text never holds raw (and PostgreSQL's text accepts, unlike NUL).
const SLOTS = { origin: '\u0001origin\u0001', q: '\u0001q\u0001', total: '\u0001total\u0001' } as const;
const OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');
/** A team's stored bytes are its GET document, `{"data":<resource>}`; a list holds the resources. */
const STORED_PREFIX = '{"data":';

/** The bytes after the data array of Teamstage's answer `recorded` (to `origin`'s list with `q`), with slots. */
export function listTailTemplate(recorded: Buffer, sample: { origin: string; q: string }): string {
  const text = recorded.toString();
  const pagination = JSON.parse(text).meta?.pagination;
  if (pagination?.['total-pages'] !== 1 || pagination['page-size'] !== LIST_PAGE_SIZE) {
    throw new Error(`the recorded team list must be one page of ${LIST_PAGE_SIZE}: ${JSON.stringify(pagination)}`);
  }
  const start = text.lastIndexOf('],"links":');
  const total = `"total-count":${pagination['total-count']}`;
  const tail = text
    .slice(start)
    .split(sample.origin)
    .join(SLOTS.origin)
    .split(`q=${sample.q}&`)
    .join(`q=${SLOTS.q}&`)
    .replace(total, `"total-count":${SLOTS.total}`);
  if (start < 0 || !Object.values(SLOTS).every((slot) => tail.includes(slot))) throw new Error(`no list envelope with origin, q and total in ${text.slice(-400)}`);
  return tail;
}

/** Fills the envelope in, per request: the parts between the slots are cut once. */
export function teamListWriter(tail: string) {
  const parts = tail.split(/(\u0001(?:origin|q|total)\u0001)/);
  return (reply: ServerResponse, page: { origin: string; q: string; storedBodies: Buffer[]; total: number }) => {
    const filled = parts.map((part) => (part === SLOTS.origin ? page.origin : part === SLOTS.q ? page.q : part === SLOTS.total ? String(page.total) : part)).join('');
    const chunks: Buffer[] = [OPEN];
    page.storedBodies.forEach((body, i) => {
      if (i > 0) chunks.push(COMMA);
      chunks.push(body.subarray(STORED_PREFIX.length, body.length - 1));
    });
    chunks.push(Buffer.from(filled));
    const document = Buffer.concat(chunks);
    reply.writeHead(200, { 'content-type': 'application/vnd.api+json', 'content-length': document.length });
    reply.end(document);
  };
}

/**
 * The `q` of a team list request (`/api/v2/organizations/:org/teams?q=…`), or undefined for any other path.
 * The bench's queries are digits, so the decoded value goes back into the links as it came.
 */
export function teamListQuery(url: string): string | undefined {
  const query = url.indexOf('?');
  if (query < 0 || !url.slice(0, query).endsWith('/teams')) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get('q') ?? '';
}

/** Throws unless `body` is a team document whose resource a list can take as it is. */
export function assertStoredTeamDocument(body: string): void {
  if (!body.startsWith(`${STORED_PREFIX}{`) || !body.endsWith('}}')) throw new Error(`not a single-resource document: ${body.slice(0, 80)}`);
}
