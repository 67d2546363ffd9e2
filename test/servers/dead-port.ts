// A port on 127.0.0.1 where nothing listens (bound, then closed): connections to it are refused.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export async function deadPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
