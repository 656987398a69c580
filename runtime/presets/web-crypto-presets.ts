/** The presets written on Web Crypto directly: one object, scheme included, on every runtime. */
export { azureEventGrid } from './azure-event-grid.js';
export { hubspot } from './hubspot.js';
export { intercom } from './intercom.js';
export { lemonSqueezy } from './lemon-squeezy.js';
export { linear } from './linear.js';
export { mailgun } from './mailgun.js';
export { meta } from './meta.js';
export { microsoftGraph } from './microsoft-graph.js';
export { okta } from './okta.js';
export { paddle } from './paddle.js';
export { plaid } from './plaid.js';
export { sendgrid } from './sendgrid.js';
export { square } from './square.js';
export { twitch } from './twitch.js';
export { zoom } from './zoom.js';
