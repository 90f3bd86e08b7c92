/**
 * A local HTTP server that records every request, to prove that confined code sent none (or
 * which). CORS and CORP open, so a browser page may reach it when the code under test is allowed to.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running probe: its origin, the requests it got (`METHOD url`), and how to stop it. */
export interface ProbeServer {
  origin: string;
  hits: string[];
  close(): Promise<void>;
}

/** Starts a probe on a free loopback port; every answer is `{ probe: true, path }`. */
export async function startProbe(): Promise<ProbeServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' });
    res.end(JSON.stringify({ probe: true, path: req.url }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, close: () => new Promise((r) => server.close(() => r())) };
}
