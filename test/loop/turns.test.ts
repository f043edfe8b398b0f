import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LoopTurns } from '../../src/loop/index.js';

describe('LoopTurns', () => {
  it('gives turns first come, first served, and a caller asking again queues behind the others', async () => {
    const turns = new LoopTurns();
    const order: string[] = [];
    const worker = async (name: string) => {
      for (let i = 1; i <= 3; i++) {
        await turns.turn();
        order.push(`${name}${i}`);
      }
    };
    await Promise.all([worker('a'), worker('b'), worker('c')]);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3']);
    expect(turns.pending).toBe(0);
  });

  it('serves request turns before background turns, each in the order asked', async () => {
    const turns = new LoopTurns();
    const order: string[] = [];
    const take = (name: string, priority: 'request' | 'background') =>
      turns.turn(priority).then(() => order.push(name));
    const all = [
      take('step1', 'background'),
      take('step2', 'background'),
      take('start1', 'request'),
      take('step3', 'background'),
      take('start2', 'request'),
    ];
    expect(turns.pending).toBe(5);
    await Promise.all(all);
    expect(order).toEqual(['start1', 'start2', 'step1', 'step2', 'step3']);
  });

  it('one caller per turn of the loop: I/O that is ready is handled between two turns', async () => {
    // A chain of promises alone never lets the loop read a socket; a chain of turns does.
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    const [peer] = await accepted;
    let received = false;
    peer.on('data', () => {
      received = true;
    });
    const turns = new LoopTurns();
    let turnsBefore = 0;
    client.write('ping');
    for (let i = 0; i < 100 && !received; i++) {
      await Promise.resolve(); // what the work of a turn does: it never waits on I/O
      await turns.turn();
      turnsBefore++;
    }
    expect(received).toBe(true);
    expect(turnsBefore).toBeLessThan(100);
    client.destroy();
    peer.destroy();
    server.close();
  });

  it('a turn asked during a turn runs on a later turn of the loop, after immediates queued meanwhile', async () => {
    const turns = new LoopTurns();
    const order: string[] = [];
    await turns.turn();
    setImmediate(() => order.push('immediate'));
    await turns.turn();
    order.push('turn');
    expect(order).toEqual(['immediate', 'turn']);
  });
});
