/**
 * The portal end to end in headless Chromium: tenant A opens its magic link, registers an endpoint
 * with the form (keyboard), sends a test event to a receiver that fails, sees the failed attempt (HTTP
 * status, duration, response snippet, next retry) and then the dead letter, switches the receiver to
 * succeed, redelivers from the UI and sees the delivery succeed; edits, disables and rotates. Tenant B,
 * signed in with its own link, gets 404 for A's endpoint and delivery URLs; an expired or tampered link
 * is refused; after A signs out, a copy of A's cookie is refused in the browser and over fetch. Every page passes the accessibility floor (labels, viewport, landmarks) and leaves a
 * screenshot in test/.tmp/portal-screenshots/.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, checkAccessible, launch, screenshot, skipBrowser } from './browser.js';
import { type PortalFixture, type Receiver, startPortal, startReceiver } from './helpers.js';

const reloadUntil = async (page: Page, ready: () => Promise<boolean>, ms = 15_000) => {
  const until = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > until) throw new Error(`page never got ready: ${page.url()}`);
    await new Promise((r) => setTimeout(r, 200));
    await page.reload();
  }
};

describe.skipIf(skipBrowser)('portal in Chromium', () => {
  let portal: PortalFixture;
  let receiver: Receiver;
  let a: Browser;
  let b: Browser;
  let endpointUrl = '';
  let deliveryUrl = '';

  beforeAll(async () => {
    receiver = await startReceiver();
    // One retry, 5 s after the first failure: long enough to see it scheduled, short enough to wait for.
    portal = await startPortal({ retry: [0, 5] });
    a = await launch();
    b = await launch({ width: 390, height: 844 }); // a phone
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await portal?.close();
    await receiver?.close();
  });

  it('A registers an endpoint, sees a failed attempt and a dead letter, redelivers, sees it succeed', async () => {
    const page = a.page;
    await page.goto(portal.link('acme'));
    await page.waitForURL(`${portal.base}/`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Endpoints');
    await checkAccessible(page);
    await screenshot(page, '01-endpoints-empty');

    // The skip link is the first stop of the keyboard.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');

    await page.getByRole('link', { name: 'Add endpoint' }).click();
    await checkAccessible(page);
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/hooks`);
    await page.getByLabel('Description').fill('Acme production');
    // The catalog: summaries and example payloads of the contract's events.
    const adopted = page.locator('.event', { has: page.locator('input[value="pet.adopted"]') });
    await adopted.locator('summary').click();
    expect(await adopted.locator('label').textContent()).toBe('pet.adopted — A pet found its home');
    expect(await adopted.locator('pre').textContent()).toContain('"petId": "pet_1"');
    await screenshot(page, '02-add-endpoint');
    // Keyboard only: tick the event with Space, submit with Enter.
    await page.locator('input[value="pet.adopted"]').focus();
    await page.keyboard.press('Space');
    expect(await page.locator('input[value="pet.adopted"]').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Add endpoint' }).focus();
    await page.keyboard.press('Enter');

    await page.waitForSelector('text=it is shown only once');
    const secret = await page.getByLabel(/Signing secret for/).inputValue();
    expect(secret.length).toBeGreaterThan(20);
    await checkAccessible(page);
    await screenshot(page, '03-secret-shown-once');
    await page.getByRole('link', { name: /I have stored it/ }).click();
    endpointUrl = page.url();
    expect(endpointUrl).toMatch(/\/webhooks\/portal\/endpoints\/ep_[0-9a-f]+$/);

    await page.getByLabel('Event', { exact: true }).selectOption('pet.adopted');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForSelector('text=Test event queued');
    await reloadUntil(page, async () => (await page.locator('tbody tr').count()) > 0);
    await checkAccessible(page);
    await screenshot(page, '04-endpoint-with-delivery');

    await page.getByRole('link', { name: 'pet.adopted' }).first().click();
    deliveryUrl = page.url();
    expect(deliveryUrl).toMatch(/\/webhooks\/portal\/deliveries\/dlv_[0-9a-f]+$/);
    // The first attempt failed and a retry is scheduled (5 s later).
    await reloadUntil(page, async () => (await page.locator('tbody tr').count()) >= 1);
    const first = page.locator('tbody tr').last();
    expect(await first.locator('td').nth(1).textContent()).toBe('failed');
    expect(await first.locator('td').nth(2).textContent()).toBe('503');
    expect(await first.locator('td').nth(3).textContent()).toMatch(/^\d+ ms$|^\d+\.\d\d s$/);
    expect(await first.locator('pre').textContent()).toBe('receiver down for maintenance <b>bold</b>');
    expect(await page.locator('dt:has-text("Status") + dd').textContent()).toBe('pending');
    expect(await page.locator('dt:has-text("Next retry") + dd').textContent()).toMatch(/UTC \(in \d s\)$/);
    await checkAccessible(page);
    await screenshot(page, '05-delivery-failed-attempt');

    await reloadUntil(
      page,
      async () => (await page.locator('dt:has-text("Status") + dd').textContent()) === 'dead',
    );
    expect(await page.locator('tbody tr').count()).toBe(2);

    await page.getByRole('link', { name: 'Dead letters' }).first().click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Dead letters');
    const deliveryId = deliveryUrl.split('/').pop() as string;
    const row = page.locator('tbody tr', { hasText: deliveryId });
    expect(await row.count()).toBe(1);
    await checkAccessible(page);
    await screenshot(page, '06-dead-letters');

    receiver.succeed(true);
    await row.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Redeliver selected' }).click();
    await page.waitForSelector('text=1 delivery queued again');
    await page.goto(deliveryUrl);
    await reloadUntil(
      page,
      async () => (await page.locator('dt:has-text("Status") + dd').textContent()) === 'succeeded',
    );
    const latest = page.locator('tbody tr').first();
    expect(await latest.locator('td').nth(1).textContent()).toBe('succeeded');
    expect(await latest.locator('td').nth(2).textContent()).toBe('200');
    expect(await latest.locator('pre').textContent()).toBe('thanks');
    await checkAccessible(page);
    await screenshot(page, '07-delivery-succeeded');
    // The same page on a phone: no sideways scrolling of the page (wide tables scroll in their region).
    await page.setViewportSize({ width: 390, height: 844 });
    await checkAccessible(page);
    await screenshot(page, '07-delivery-succeeded-phone');
    await page.setViewportSize({ width: 1100, height: 800 });

    // Redeliver one, from the delivery page.
    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.waitForSelector('text=1 delivery queued again');
    await reloadUntil(page, async () => (await page.locator('tbody tr').count()) === 4);
    expect(receiver.received.length).toBe(4);
  }, 90_000);

  it('A edits, disables, enables and rotates the secret (shown once)', async () => {
    const page = a.page;
    await page.goto(endpointUrl);
    await page.getByRole('link', { name: 'Edit' }).click();
    await checkAccessible(page);
    await page.getByLabel('Description').fill('Acme staging');
    await page.getByLabel('All events').check();
    await screenshot(page, '08-edit-endpoint');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForSelector('text=Endpoint saved.');
    expect(await page.locator('dt:has-text("Events") + dd').textContent()).toBe('All events');
    expect(await page.locator('dt:has-text("Description") + dd').textContent()).toBe('Acme staging');

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.waitForSelector('text=Endpoint disabled');
    expect(await page.locator('dt:has-text("State") + dd').textContent()).toBe('disabled (by you)');
    await screenshot(page, '09-endpoint-disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.waitForSelector('text=Endpoint enabled');

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.waitForSelector('text=New signing secret');
    const secret = await page.getByLabel(/Signing secret for/).inputValue();
    const id = endpointUrl.split('/').pop() as string;
    const stored = await portal.outbox.getEndpoint(id);
    expect(stored?.secrets.map((s) => s.secret)).toContain(secret);
    expect(stored?.secrets).toHaveLength(2);
    await checkAccessible(page);
    await screenshot(page, '10-secret-rotated');
    // Shown once: the endpoint page never shows it.
    await page.goto(endpointUrl);
    expect(await page.content()).not.toContain(secret);
    await page.setViewportSize({ width: 390, height: 844 });
    await checkAccessible(page);
    await screenshot(page, '10-endpoint-phone');
  }, 60_000);

  it("B, signed in with its own link, gets 404 for A's endpoint and delivery by URL (on a phone)", async () => {
    const page = b.page;
    await page.goto(portal.link('bravo'));
    await page.waitForURL(`${portal.base}/`);
    expect(await page.getByText('No endpoints yet').count()).toBe(1);
    await checkAccessible(page);
    await screenshot(page, '11-tenant-b-endpoints-phone');
    for (const url of [endpointUrl, `${endpointUrl}/edit`, deliveryUrl]) {
      const response = await page.goto(url);
      expect(response?.status(), url).toBe(404);
      expect(await page.locator('h1').textContent()).toBe('Not found');
      expect(await page.content()).not.toContain(receiver.url);
    }
    await checkAccessible(page);
    await screenshot(page, '12-tenant-b-not-found-phone');
    await page.goto(`${portal.base}/dead-letters`);
    expect(await page.locator('tbody tr').count()).toBe(0);
  }, 60_000);

  it('refuses an expired or tampered link', async () => {
    const page = b.page;
    const expired = await page.goto(portal.link('acme', { ttlMs: 1000, now: () => Date.now() - 5000 }));
    expect(expired?.status()).toBe(401);
    expect(await page.locator('h1').textContent()).toBe('Link expired');
    await checkAccessible(page);
    await screenshot(page, '13-link-expired');
    const link = new URL(portal.link('acme'));
    link.searchParams.set('token', `${link.searchParams.get('token')}x`);
    expect((await page.goto(link.href))?.status()).toBe(401);
    // Still B's session: the refused link changed nothing.
    await page.goto(`${portal.base}/`);
    expect(await page.getByText('Account bravo').count()).toBe(1);
  }, 60_000);

  it('signing out ends the session: a copy of the cookie is refused in the browser and over fetch', async () => {
    const page = a.page;
    await page.goto(portal.link('acme'));
    await page.waitForURL(`${portal.base}/`);
    const copied = (await a.context.cookies()).find((c) => c.name === 'gw_portal');
    expect(copied?.value).toMatch(/^[\w-]+\.[\w-]+$/);
    await page.goto(endpointUrl);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForSelector('h1:has-text("Signed out")');
    await checkAccessible(page);
    await screenshot(page, '14-signed-out');
    expect((await a.context.cookies()).find((c) => c.name === 'gw_portal')).toBeUndefined();

    // The copied cookie put back into the browser: refused like no session.
    await a.context.addCookies([copied as NonNullable<typeof copied>]);
    const replayed = await page.goto(endpointUrl);
    expect(replayed?.status()).toBe(401);
    expect(await page.locator('h1').textContent()).toBe('Signed out');
    expect(await page.content()).not.toContain(receiver.url);

    // And outside any browser, for a page and an action: nothing changes.
    const cookie = `gw_portal=${copied?.value}`;
    expect((await fetch(endpointUrl, { headers: { cookie }, redirect: 'manual' })).status).toBe(401);
    const id = endpointUrl.split('/').pop() as string;
    const before = (await portal.outbox.getEndpoint(id))?.secrets;
    const rotate = await fetch(`${endpointUrl}/rotate-secret`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    expect(rotate.status).toBe(401);
    expect((await portal.outbox.getEndpoint(id))?.secrets).toEqual(before);

    // B's session, in its own browser, was not touched.
    await b.page.goto(`${portal.base}/`);
    expect(await b.page.getByText('Account bravo').count()).toBe(1);
  }, 60_000);
});
