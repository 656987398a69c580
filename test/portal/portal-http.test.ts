/**
 * The portal over real HTTP without a browser: the magic link and its session cookie, CSRF, HTTPS-only
 * registration, escaping, and tenant isolation — tenant B, signed in with a valid link of its own,
 * reaches none of tenant A's endpoints or deliveries by editing URLs, ids or form fields: every such
 * page and action answers 404 like an unknown id, and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortalClient, type PortalFixture, type Receiver, startPortal, startReceiver } from './helpers.js';

const P = '/webhooks/portal';

describe('portal over HTTP', () => {
  let portal: PortalFixture;
  let receiver: Receiver;
  let a: PortalClient;
  let b: PortalClient;
  let endpointA: string;
  let deliveryA: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    portal = await startPortal({ retry: [0] });
    a = new PortalClient(portal);
    b = new PortalClient(portal);
    await a.open(portal.link('acme'));
    await b.open(portal.link('bravo'));
    const created = await a.post(`${P}/endpoints`, {
      _csrf: await a.csrf(),
      url: `${receiver.url}/a`,
      description: 'acme <script>alert(1)</script>',
      events: ['pet.adopted'],
    });
    expect(created.status).toBe(201);
    endpointA = (await portal.outbox.listEndpoints({ tenant: 'acme' }))[0]?.id as string;
    const test = await a.post(`${P}/endpoints/${endpointA}/test`, {
      _csrf: await a.csrf(),
      event: 'pet.adopted',
    });
    expect(test.status).toBe(303);
    const deliveries = await portal.outbox.listDeliveries({ tenant: 'acme' });
    deliveryA = deliveries[0]?.id as string;
    expect(deliveryA).toBeDefined();
  });
  afterAll(async () => {
    await portal?.close();
    await receiver?.close();
  });

  it('opens a session from a link: HttpOnly, SameSite=Strict cookie on the portal path, no-store page', async () => {
    const client = new PortalClient(portal);
    const response = await client.open(portal.link('acme'));
    expect(response.status).toBe(200);
    const cookie = response.headers.getSetCookie()[0] ?? '';
    expect(cookie).toMatch(
      /^gw_portal=[\w-]+\.[\w-]+; Path=\/webhooks\/portal; Max-Age=3600; HttpOnly; SameSite=Strict$/,
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'; style-src 'sha256-/);
    expect(await response.text()).toContain(`<meta http-equiv="refresh" content="0;url=${P}/">`);
    const list = await client.get(`${P}/`);
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('Account <strong>acme</strong>');
  });

  it('refuses a missing, tampered, expired or foreign-key link, and a missing or forged cookie', async () => {
    const fresh = new PortalClient(portal);
    expect((await fresh.get(`${P}/`)).status).toBe(401);
    const link = new URL(portal.link('acme'));
    const token = link.searchParams.get('token') as string;
    const [body, sig] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, t: 'bravo' })).toString('base64url');
    const variants = [
      `${forged}.${sig}`, // tenant changed
      `${body}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`, // signature changed
      `${body}.${sig}!`, // another spelling of the same signature bytes
      `${body}`,
      '',
    ];
    for (const variant of variants) {
      link.searchParams.set('token', variant);
      const response = await fresh.open(link.href);
      expect(response.status, variant).toBe(401);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    const expired = await fresh.open(portal.link('acme', { ttlMs: 1000, now: () => Date.now() - 2000 }));
    expect(expired.status).toBe(401);
    const otherKey = await fresh.open(
      portal.link('acme', { key: 'another-key-of-the-right-length-0123456789' }),
    );
    expect(otherKey.status).toBe(401);
    // A link token is not a session: set as the cookie directly, it is refused.
    fresh.cookie = `gw_portal=${new URL(portal.link('acme')).searchParams.get('token')}`;
    expect((await fresh.get(`${P}/`)).status).toBe(401);
    // B's session cookie with its tenant rewritten to A's.
    const [sBody, sSig] = b.cookie.slice('gw_portal='.length).split('.') as [string, string];
    const sClaims = JSON.parse(Buffer.from(sBody, 'base64url').toString()) as Record<string, unknown>;
    fresh.cookie = `gw_portal=${Buffer.from(JSON.stringify({ ...sClaims, t: 'acme' })).toString('base64url')}.${sSig}`;
    expect((await fresh.get(`${P}/`)).status).toBe(401);
  });

  it('refuses a form without the session CSRF token, with another session token, or from another site', async () => {
    const fields = { url: `${receiver.url}/x`, events: ['pet.adopted'] };
    expect((await a.post(`${P}/endpoints`, fields)).status).toBe(403);
    expect((await a.post(`${P}/endpoints`, { ...fields, _csrf: await b.csrf() })).status).toBe(403);
    const crossSite = await a.post(
      `${P}/endpoints`,
      { ...fields, _csrf: await a.csrf() },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expect(await portal.outbox.listEndpoints({ tenant: 'acme' })).toHaveLength(1);
  });

  it('refuses plain http and internal addresses at registration, showing the form again', async () => {
    for (const url of ['http://example.com/hooks', 'https://10.0.0.1/hooks', 'not a url']) {
      const response = await a.post(`${P}/endpoints`, {
        _csrf: await a.csrf(),
        url,
        events: ['pet.adopted'],
      });
      expect(response.status, url).toBe(400);
      const page = await response.text();
      expect(page).toContain('role="alert"');
      expect(page).toContain('aria-invalid="true"');
    }
    const noEvents = await a.post(`${P}/endpoints`, { _csrf: await a.csrf(), url: `${receiver.url}/a` });
    expect(noEvents.status).toBe(400);
    expect(await noEvents.text()).toContain('Pick at least one event');
    expect(await portal.outbox.listEndpoints({ tenant: 'acme' })).toHaveLength(1);
  });

  it('escapes what customers typed', async () => {
    const page = await (await a.get(`${P}/`)).text();
    expect(page).toContain('acme &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>');
  });

  it("answers tenant B 404 for every page and action on tenant A's ids, and changes nothing", async () => {
    // The worker records the test message's failed attempt on the endpoint (its failure count): wait
    // for that first, so whatever changes below is B's doing.
    await expect
      .poll(async () => (await portal.outbox.getDelivery(deliveryA))?.status, { timeout: 10_000 })
      .toBe('dead');
    const before = await portal.outbox.getEndpoint(endpointA);
    const pages = [
      `${P}/endpoints/${endpointA}`,
      `${P}/endpoints/${endpointA}/edit`,
      `${P}/deliveries/${deliveryA}`,
      `${P}/dead-letters?endpoint=${endpointA}`,
    ];
    for (const path of pages) {
      const response = await b.get(path);
      expect(response.status, path).toBe(404);
      const text = await response.text();
      expect(text).not.toContain(receiver.url);
      expect(text).not.toContain(endpointA);
    }
    const csrf = await b.csrf();
    const actions: [string, Record<string, string | string[]>][] = [
      [`${P}/endpoints/${endpointA}`, { url: `${receiver.url}/b`, events: ['*'] }],
      [`${P}/endpoints/${endpointA}/disable`, {}],
      [`${P}/endpoints/${endpointA}/enable`, {}],
      [`${P}/endpoints/${endpointA}/rotate-secret`, {}],
      [`${P}/endpoints/${endpointA}/test`, { event: 'pet.adopted' }],
      [`${P}/endpoints/${endpointA}/redeliver`, { delivery: deliveryA }],
      [`${P}/deliveries/${deliveryA}/redeliver`, {}],
    ];
    for (const [path, fields] of actions) {
      const response = await b.post(path, { _csrf: csrf, ...fields });
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('whsec_');
    }
    // The cross-endpoint forms take ids in the body: A's ids there redeliver nothing.
    const deadLetters = await b.post(`${P}/dead-letters/redeliver`, { _csrf: csrf, delivery: deliveryA });
    expect(deadLetters.status).toBe(303);
    expect(deadLetters.headers.get('location')).toBe(`${P}/dead-letters?notice=redelivered&n=0`);
    expect(await portal.outbox.getEndpoint(endpointA)).toEqual(before);
    const list = await (await b.get(`${P}/`)).text();
    expect(list).toContain('No endpoints yet');
    const dead = await (await b.get(`${P}/dead-letters`)).text();
    expect(dead).not.toContain(deliveryA);
  });

  it('lets A see, redeliver and disable its own endpoint', async () => {
    await expect
      .poll(async () => (await portal.outbox.getEndpoint(endpointA))?.failingSince, { timeout: 10_000 })
      .toBeTypeOf('number');
    const page = await (await a.get(`${P}/endpoints/${endpointA}`)).text();
    expect(page).toContain(deliveryA);
    // The receiver answers 503: the failure streak and when it began are on the page.
    expect(page).toContain('<dt>Failing since</dt>');
    const disabled = await a.post(`${P}/endpoints/${endpointA}/disable`, { _csrf: await a.csrf() });
    expect(disabled.status).toBe(303);
    expect(disabled.headers.get('location')).toBe(`${P}/endpoints/${endpointA}?notice=disabled`);
    expect((await portal.outbox.getEndpoint(endpointA))?.enabled).toBe(false);
    expect((await a.post(`${P}/endpoints/${endpointA}/enable`, { _csrf: await a.csrf() })).status).toBe(303);
    expect((await portal.outbox.getEndpoint(endpointA))?.enabled).toBe(true);
    // Enabling starts the streak over.
    expect(await (await a.get(`${P}/endpoints/${endpointA}`)).text()).not.toContain('Failing since');
  });

  it('signs out: the cookie is cleared', async () => {
    const client = new PortalClient(portal);
    await client.open(portal.link('acme'));
    const response = await client.post(`${P}/logout`, { _csrf: await client.csrf() });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()[0]).toMatch(/^gw_portal=; Path=\/webhooks\/portal; Max-Age=0;/);
  });
});
