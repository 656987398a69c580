/** Node: node:http, each route on its receiver's `node()` listener. */
import http from 'node:http';
import app, { receivers } from './app.js';

const handlers = new Map(Object.entries(receivers).map(([path, receiver]) => [path, receiver.node()]));
const server = http.createServer((req, res) => {
  const handler = handlers.get(req.url ?? '');
  if (handler !== undefined) return handler(req, res);
  void app.fetch(new Request(`http://127.0.0.1${req.url}`)).then(async (response) => {
    res.writeHead(response.status, { 'content-type': 'application/json' });
    res.end(await response.text());
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${(server.address() as { port: number }).port}`);
});
