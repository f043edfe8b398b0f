// Loopback ports for tests of connection failures.
import { createServer } from 'node:net';

/** A loopback port nothing listens on: one the system just gave out, and closed again. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
