import { Pool } from 'undici';

export interface HttpResponse {
  status: number;
  body: any;
  text: string;
}

/** A keep-alive client over a real socket (system tests), shaped like the inject ApiClient. */
export class HttpClient {
  private readonly pool: Pool;

  constructor(
    readonly baseUrl: string,
    connections = 10,
  ) {
    this.pool = new Pool(baseUrl, { connections, pipelining: 1 });
  }

  async request(method: string, path: string, token: string | undefined, body?: unknown): Promise<HttpResponse> {
    const response = await this.pool.request({
      method: method as 'GET',
      path: path.startsWith('/api/') ? path : `/api/v2${path}`,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/vnd.api+json' } : {}),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const text = await response.body.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.statusCode, body: parsed, text };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Site admin → user → user token → organization, over HTTP. Returns the owner's token. */
export async function bootstrapOrganization(client: HttpClient, siteToken: string, name: string): Promise<{ ownerToken: string; organization: string }> {
  const username = `owner-${name}`;
  const user = await client.request('POST', '/admin/users', siteToken, {
    data: { type: 'users', attributes: { username, email: `${username}@example.test` } },
  });
  if (user.status !== 201) throw new Error(`create user: ${user.status} ${user.text}`);
  const token = await client.request('POST', `/users/${user.body.data.id}/authentication-tokens`, siteToken, {});
  if (token.status !== 201) throw new Error(`create token: ${token.status} ${token.text}`);
  const ownerToken = token.body.data.attributes.token as string;
  const org = await client.request('POST', '/organizations', ownerToken, {
    data: { type: 'organizations', attributes: { name, email: `ops@${name}.test` } },
  });
  if (org.status !== 201) throw new Error(`create organization: ${org.status} ${org.text}`);
  return { ownerToken, organization: name };
}
