/** Deno: Deno.serve with the app's fetch handler (run with --allow-net only). */
import app from './app.js';

declare const Deno: { serve(options: object, handler: (request: Request) => Promise<Response>): unknown };
Deno.serve(
  {
    hostname: '127.0.0.1',
    port: 0,
    onListen: ({ port }: { port: number }) => console.log(`listening ${port}`),
  },
  app.fetch,
);
