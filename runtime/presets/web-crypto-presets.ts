/**
 * The presets written on Web Crypto directly: one object, scheme included, on every runtime, under
 * their bound names (`zoomPreset`). Declared here with their types rather than re-exported, so the
 * declarations behind a generated receiver's import stop at this file instead of loading every
 * preset's module.
 */
import { azureEventGrid } from './azure-event-grid.js';
import { hubspot } from './hubspot.js';
import { intercom } from './intercom.js';
import { lemonSqueezy } from './lemon-squeezy.js';
import { linear } from './linear.js';
import { mailgun } from './mailgun.js';
import { meta } from './meta.js';
import { microsoftGraph } from './microsoft-graph.js';
import { okta } from './okta.js';
import { paddle } from './paddle.js';
import { plaid } from './plaid.js';
import { sendgrid } from './sendgrid.js';
import { square } from './square.js';
import { twitch } from './twitch.js';
import type { ProviderPreset } from './types.js';
import { zoom } from './zoom.js';

export const azureEventGridPreset: ProviderPreset<'azure-event-grid'> = azureEventGrid;
export const hubspotPreset: ProviderPreset<'hubspot'> = hubspot;
export const intercomPreset: ProviderPreset<'intercom'> = intercom;
export const lemonSqueezyPreset: ProviderPreset<'lemon-squeezy'> = lemonSqueezy;
export const linearPreset: ProviderPreset<'linear'> = linear;
export const mailgunPreset: ProviderPreset<'mailgun'> = mailgun;
export const metaPreset: ProviderPreset<'meta'> = meta;
export const microsoftGraphPreset: ProviderPreset<'microsoft-graph'> = microsoftGraph;
export const oktaPreset: ProviderPreset<'okta'> = okta;
export const paddlePreset: ProviderPreset<'paddle'> = paddle;
export const plaidPreset: ProviderPreset<'plaid'> = plaid;
export const sendgridPreset: ProviderPreset<'sendgrid'> = sendgrid;
export const squarePreset: ProviderPreset<'square'> = square;
export const twitchPreset: ProviderPreset<'twitch'> = twitch;
export const zoomPreset: ProviderPreset<'zoom'> = zoom;
