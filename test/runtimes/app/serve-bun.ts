/** Bun: Bun.serve with the app's fetch handler. */
import app from './app.js';

declare const Bun: { serve(options: object): { port: number } };
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app.fetch });
console.log(`listening ${server.port}`);
