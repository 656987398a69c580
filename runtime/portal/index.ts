/** The delivery portal: a Web-standard handler, the magic links that open it, and a node:http bridge. */
export { createPortalHandler, DEFAULT_SESSION_TTL_MS, type PortalOptions } from './handler.js';
export { createPortalLink, DEFAULT_LINK_TTL_MS, type PortalLinkOptions } from './link.js';
export { type NodeListenerOptions, toNodeListener } from './node-listener.js';
export type { PortalKey } from './token.js';
