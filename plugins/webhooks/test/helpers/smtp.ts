import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mail {
  from: string;
  to: string[];
  raw: string;
  user?: string;
}

export interface MailServer {
  port: number;
  mails: Mail[];
  /** SMTP replies for the next DATA commands, in order (451 = try later, 550 = never, 0 = accept); then accept. */
  rejects: number[];
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) on 127.0.0.1; plain text, optional AUTH PLAIN/LOGIN. */
export async function startSmtp(auth?: { user: string; pass: string }): Promise<MailServer> {
  const mails: Mail[] = [];
  const box: MailServer = { port: 0, mails, rejects: [], close: async () => undefined };
  const server = new SMTPServer({
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(a, _session, cb) {
      if (auth && a.username === auth.user && a.password === auth.pass) return cb(null, { user: a.username });
      return cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const code = box.rejects.shift();
        if (code !== undefined && code !== 0) {
          const error = new Error(code >= 500 ? 'mailbox unavailable' : 'try again later') as Error & {
            responseCode: number;
          };
          error.responseCode = code;
          return cb(error);
        }
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          ...(typeof session.user === 'string' ? { user: session.user } : {}),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  box.port = (server.server.address() as AddressInfo).port;
  box.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return box;
}
