/**
 * The HTTP ceiling: a bare `node:http` server in a process of its own, answering every request
 * with the same pre-serialized bytes (a body the real server produced for the case). What it
 * reaches is what Node's HTTP stack and the load generator allow on this machine, with no
 * routing, authentication, database or serialization. Driven over IPC: each message replaces the
 * answer and replies with the port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServeRequest } from '../load/protocol.js';

let answer = { body: Buffer.from('{}'), contentType: 'application/json' };

const server = createServer((request, response) => {
  request.resume(); // a POST body is read and dropped, as the real server reads it
  request.on('end', () => {
    response.writeHead(200, { 'content-type': answer.contentType, 'content-length': answer.body.length });
    response.end(answer.body);
  });
});

const listening = new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

process.on('message', async (message: ServeRequest) => {
  await listening;
  answer = { body: Buffer.from(message.body), contentType: message.contentType };
  process.send?.({ ok: true, port: (server.address() as AddressInfo).port });
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));
