/**
 * The bench's limit servers answer a page of the team list with `q` in Teamstage's own envelope, cut from one
 * recorded answer (bench/limit/team-list-document.ts): another origin, query, count and set of teams must
 * give exactly the document Teamstage would send for them, or the bench row compares different bytes.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { listTailTemplate, teamListQuery, teamListWriter } from '../../bench/limit/team-list-document.js';

const resource = (id: string) => ({ id, type: 'teams', attributes: { name: `team-${id}`, visibility: 'secret' }, links: { self: `/api/v2/teams/${id}` } });

/** A one-page list document in the shape Teamstage sends (links and pagination as its serializer writes them). */
function teamstageAnswer(origin: string, q: string, ids: string[], pages = 1): string {
  const page = (n: number) => `${origin}/api/v2/organizations/acme/teams?q=${q}&page%5Bnumber%5D=${n}&page%5Bsize%5D=20`;
  return JSON.stringify({
    data: ids.map(resource),
    links: { self: page(1), first: page(1), prev: null, next: pages > 1 ? page(2) : null, last: page(pages) },
    meta: { pagination: { 'current-page': 1, 'page-size': 20, 'prev-page': null, 'next-page': pages > 1 ? 2 : null, 'total-pages': pages, 'total-count': ids.length } },
  });
}

function capture(): { reply: ServerResponse; sent: () => { headers: Record<string, unknown>; body: string } } {
  let headers: Record<string, unknown> = {};
  let body = '';
  const reply = {
    writeHead: (_status: number, h: Record<string, unknown>) => ((headers = h), reply),
    end: (chunk: Buffer) => (body = chunk.toString()),
  };
  return { reply: reply as unknown as ServerResponse, sent: () => ({ headers, body }) };
}

test('the envelope recorded for one query gives Teamstage’s document for another origin, query and page of teams', () => {
  const tail = listTailTemplate(Buffer.from(teamstageAnswer('http://127.0.0.1:41000', '00500', ['a1', 'a2', 'a3'])), { origin: 'http://127.0.0.1:41000', q: '00500' });
  const write = teamListWriter(tail);
  for (const ids of [['b1', 'b2'], ['c1'], []]) {
    const { reply, sent } = capture();
    const storedBodies = ids.map((id) => Buffer.from(JSON.stringify({ data: resource(id) })));
    write(reply, { origin: 'http://127.0.0.1:52000', q: '00123', storedBodies, total: ids.length });
    const expected = teamstageAnswer('http://127.0.0.1:52000', '00123', ids);
    assert.equal(sent().body, expected);
    assert.equal(sent().headers['content-length'], Buffer.byteLength(expected));
  }
});

test('an answer of more than one page is refused as a template', () => {
  const recorded = Buffer.from(teamstageAnswer('http://127.0.0.1:41000', 'te', ['a1'], 5));
  assert.throws(() => listTailTemplate(recorded, { origin: 'http://127.0.0.1:41000', q: 'te' }), /one page/);
});

test('only a team list request carries a q', () => {
  assert.equal(teamListQuery('/api/v2/organizations/acme/teams?q=00500'), '00500');
  assert.equal(teamListQuery('/api/v2/organizations/acme/teams?page%5Bsize%5D=20'), '');
  assert.equal(teamListQuery('/api/v2/teams/team-abc'), undefined);
  assert.equal(teamListQuery('/api/v2/teams/team-abc?include=users'), undefined);
});
