import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local HTTP server on one loopback address that counts the connections it saw (asserted server-side). */
export interface CountingServer {
  server: Server;
  port: number;
  address: string;
  connections: number;
  bodies: string[];
  /** The Host header of each request. */
  hosts: string[];
  /** `METHOD url` of each request, in order. */
  requests: string[];
}

export async function countingServer(address: string, text: string): Promise<CountingServer> {
  const server = createServer((req, res) => {
    s.requests.push(`${req.method} ${req.url}`);
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      s.bodies.push(body);
      s.hosts.push(req.headers.host ?? '');
      res.end(text);
    });
  });
  const s: CountingServer = { server, port: 0, address, connections: 0, bodies: [], hosts: [], requests: [] };
  server.on('connection', () => {
    s.connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  s.port = (server.address() as AddressInfo).port;
  return s;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs argv asynchronously (the proxy serves in this process: a synchronous spawn would deadlock it). */
export function runAsync(argv: readonly string[], input?: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
