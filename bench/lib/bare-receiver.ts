/**
 * The benches' local receiver: a bare keep-alive node:http server answering 200 to every POST, in a
 * worker thread so it does not share the sender's event loop.
 */
import { Worker } from 'node:worker_threads';

export async function startReceiver(): Promise<{ url: string; stop: () => Promise<void> }> {
  const code = `
    const http = require('node:http');
    const { parentPort } = require('node:worker_threads');
    const server = http.createServer({ keepAliveTimeout: 30000 }, (req, res) => {
      req.on('data', () => {});
      req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); });
    });
    server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
    parentPort.on('message', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
  `;
  const worker = new Worker(code, { eval: true });
  const port = await new Promise<number>((resolve) => worker.once('message', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      worker.postMessage('stop');
      await new Promise((r) => worker.once('exit', r));
    },
  };
}
