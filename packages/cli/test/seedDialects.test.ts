import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedClient } from '../src/demo/scriptedClient.js';
import { childTransport } from './support/childTransport.js';
import { exited, FILESYSTEM_SERVER, spawnCli } from './support/cli.js';

// The seeds' settings reachable from the built CLI (check, hook, mcp), each quoting the seed sentence.
let root: string;
let home: string;
let ws: string;
beforeEach(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-seed-cli-')));
  home = join(root, 'home');
  ws = join(root, 'ws');
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function run(args: string[], stdin = '', env: NodeJS.ProcessEnv = {}) {
  const child = spawnCli(args, { ...process.env, HOME: home, ...env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d;
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d;
  });
  child.stdin.end(stdin);
  const code = await exited(child);
  return { code, stdout, stderr };
}
const call = (tool: string, args: Record<string, unknown>) => JSON.stringify({ tool, args });
const geminiWrite = (path: string) =>
  JSON.stringify({
    session_id: 'g1',
    cwd: ws,
    hook_event_name: 'BeforeTool',
    tool_name: 'write_file',
    tool_input: { file_path: path, content: 'x' },
  });
const records = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

describe('seed 002 (wolo) from the CLI', () => {
  it('"wolo -P /workspace -P /var/tmp": --allow-path/-P paths are writable without confirmation', async () => {
    const check = (extra: string[], path: string) =>
      run(['check', '--dialect', 'wolo', '--cwd', ws, ...extra, '--call', call('write_file', { path })]);
    expect((await check([], '/srv/data/a')).code).toBe(3); // prompt: not in the allowlist
    expect((await check(['-P', '/srv/data'], '/srv/data/a')).code).toBe(0);
    expect((await check(['--allow-path', '/srv/data', '-P', '/var/cache'], '/var/cache/x')).code).toBe(0);
    expect((await check(['-P', '/srv/data'], '/srv/other/a')).code).toBe(3);
  });

  it('"Add to ~/.wolo/config.yaml": without --policy, wolo reads it; without it, only the workdir and /tmp', async () => {
    const check = (path: string) =>
      run(['check', '--dialect', 'wolo', '--cwd', ws, '--call', call('write_file', { path })]);
    expect((await check(join(ws, 'a'))).code).toBe(0);
    expect((await check('/tmp/x')).code).toBe(0);
    expect((await check('/srv/proj/a')).code).toBe(3);
    mkdirSync(join(home, '.wolo'));
    writeFileSync(
      join(home, '.wolo', 'config.yaml'),
      'path_safety:\n  allowed_write_paths:\n    - /srv/proj\n',
    );
    expect((await check('/srv/proj/a')).code).toBe(0);
    // A broken config there is a config error naming it, never an empty policy.
    writeFileSync(join(home, '.wolo', 'config.yaml'), 'path_safety:\n  allowed_write_paths: 7\n');
    const bad = await check('/srv/proj/a');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(join(home, '.wolo', 'config.yaml'));
  });

  it('"This path is not in the default allowlist (/tmp) or configured whitelist." is the prompt reason', async () => {
    const r = await run([
      'check',
      '--dialect',
      'wolo',
      '--cwd',
      ws,
      '--call',
      call('write_file', { path: '/srv/proj/file.py' }),
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('This path is not in the default allowlist (/tmp) or configured whitelist.');
  });

  it('"path_safety.audit_denied: When enabled, denied operations are logged" to audit_log_file', async () => {
    const log = join(root, 'path_audit.log');
    const policy = join(root, 'config.yaml');
    writeFileSync(policy, `path_safety:\n  audit_denied: true\n  audit_log_file: ${log}\n`);
    // Gemini CLI cannot ask: the confirmation is denied ("Non-interactive mode denial"), and logged.
    const denied = await run(
      ['hook', 'gemini-cli', '--dialect', 'wolo', '--policy', policy],
      geminiWrite('/srv/p/a'),
    );
    expect(JSON.parse(denied.stdout).decision).toBe('deny');
    const allowed = await run(
      ['hook', 'gemini-cli', '--dialect', 'wolo', '--policy', policy],
      geminiWrite(join(ws, 'a')),
    );
    expect(JSON.parse(allowed.stdout).decision ?? 'allow').not.toBe('deny');
    const lines = records(log);
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines[0])).toContain('/srv/p/a');
    // `~` in audit_log_file is the home directory (the seed's own example: ~/.wolo/path_audit.log).
    writeFileSync(policy, 'path_safety:\n  audit_denied: true\n  audit_log_file: ~/.wolo/path_audit.log\n');
    await run(['hook', 'gemini-cli', '--dialect', 'wolo', '--policy', policy], geminiWrite('/srv/p/b'));
    expect(records(join(home, '.wolo', 'path_audit.log'))).toHaveLength(1);
  });

  it('"wolo --wild": every check bypassed, unanalysable shell allowed, and every decision on record', async () => {
    const log = join(root, 'wild.log');
    const policy = join(root, 'config.yaml');
    writeFileSync(policy, `path_safety:\n  audit_log_file: ${log}\n`);
    const bash = (command: string) =>
      JSON.stringify({
        session_id: 'c1',
        cwd: ws,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command },
      });
    for (const cmd of ['eval "$X"', 'cat "$(mktemp)" > /etc/x']) {
      const r = await run(
        ['hook', 'claude-code', '--dialect', 'wolo', '--policy', policy, '--wild'],
        bash(cmd),
      );
      expect(r.code, cmd).toBe(0);
      expect(r.stdout).not.toContain('"deny"');
    }
    expect(records(log)).toHaveLength(2);
    // WOLO_WILD_MODE=true is the same switch.
    const env = await run(
      [
        'check',
        '--dialect',
        'wolo',
        '--policy',
        policy,
        '--cwd',
        ws,
        '--call',
        call('write_file', { path: '/etc/x' }),
      ],
      '',
      { WOLO_WILD_MODE: 'true' },
    );
    expect(env.code).toBe(0);
  });

  it('"max_confirmations_per_session: Caps how many confirmations", and "-r <session_id> to resume and keep confirmations"', async () => {
    const policy = join(root, 'config.yaml');
    writeFileSync(policy, 'path_safety:\n  max_confirmations_per_session: 1\n');
    // Outside /tmp ("Allowed without confirmation: Only /tmp"), so every write there needs a confirmation.
    const area = realpathSync.native(mkdtempSync('/var/tmp/toolgate-wolo-'));
    mkdirSync(join(area, 'a'));
    mkdirSync(join(area, 'b'));
    const session = async (extra: string[]) => {
      const child = spawnCli(
        [
          'mcp',
          '--dialect',
          'wolo',
          '--policy',
          policy,
          '--cwd',
          ws,
          '--approvals',
          'auto-allow',
          ...extra,
          '--',
          process.execPath,
          FILESYSTEM_SERVER,
          area,
        ],
        { ...process.env, HOME: home },
      );
      const client = new ScriptedClient(childTransport(child));
      await client.start();
      await client.initialize({});
      const write = async (path: string) => {
        const r = (
          await client.request('tools/call', { name: 'write_file', arguments: { path, content: 'x' } })
        ).result as { isError?: boolean; content: { text: string }[] };
        return r.isError ? (JSON.parse(r.content[0]!.text).code as string) : 'ok';
      };
      return { child, write };
    };
    const first = await session(['-r', 'sess-1']);
    expect(await first.write(join(area, 'a', 'x'))).toBe('ok'); // one confirmation (auto-allowed)
    expect(await first.write(join(area, 'b', 'x'))).toBe('PROMPT_LIMIT'); // the cap
    first.child.stdin.end();
    await exited(first.child);
    expect(existsSync(join(home, '.wolo', 'sessions', 'sess-1'))).toBe(true);
    // Resumed: the session's count (and grants) come back from ~/.wolo/sessions/<session_id>/.
    const resumed = await session(['-r', 'sess-1']);
    expect(await resumed.write(join(area, 'b', 'y'))).toBe('PROMPT_LIMIT');
    resumed.child.stdin.end();
    await exited(resumed.child);
    // Another session starts afresh.
    const other = await session(['-r', 'sess-2']);
    expect(await other.write(join(area, 'b', 'z'))).toBe('ok');
    other.child.stdin.end();
    await exited(other.child);
    rmSync(area, { recursive: true, force: true });
  }, 60_000);
});

describe('seed 001 (Wunderland) from the CLI', () => {
  const policyFile = () => {
    const p = join(root, 'agent.config.json');
    writeFileSync(
      p,
      JSON.stringify({
        defaultPolicy: 'deny',
        inheritFromTier: false,
        rules: [{ pattern: `${ws}/**`, read: true, write: true }],
      }),
    );
    return p;
  };

  it('"Location: ~/.wunderland/security/violations.log": hook violations land there, in the home directory', async () => {
    const r = await run(
      ['hook', 'gemini-cli', '--dialect', 'wunderland', '--policy', policyFile()],
      geminiWrite('/etc/passwd'),
    );
    expect(JSON.parse(r.stdout).decision).toBe('deny');
    const lines = records(join(home, '.wunderland', 'security', 'violations.log'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'SECURITY_VIOLATION' });
    expect(existsSync(join(process.cwd(), '~'))).toBe(false);
    // --no-dialect-audit turns it off.
    await run(
      ['hook', 'gemini-cli', '--dialect', 'wunderland', '--policy', policyFile(), '--no-dialect-audit'],
      geminiWrite('/etc/x'),
    );
    expect(records(join(home, '.wunderland', 'security', 'violations.log'))).toHaveLength(1);
  });

  it('"export WUNDERLAND_VIOLATION_WEBHOOKS=…": toolgate hook notifies a real receiver of a violation', async () => {
    const bodies: unknown[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d;
      });
      req.on('end', () => {
        bodies.push(JSON.parse(body));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const r = await run(
        ['hook', 'gemini-cli', '--dialect', 'wunderland', '--policy', policyFile()],
        geminiWrite('/etc/passwd'),
        { WUNDERLAND_VIOLATION_WEBHOOKS: url, TOOLGATE_WEBHOOKS_OUTBOX: join(root, 'outbox') },
      );
      expect(JSON.parse(r.stdout).decision).toBe('deny');
      const end = Date.now() + 10_000;
      while (bodies.length === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
      expect(bodies).toHaveLength(1);
      expect(JSON.stringify(bodies[0])).toContain('/etc/passwd');
    } finally {
      server.close();
    }
  });
});

describe('violation notifications from toolgate mcp', () => {
  it('"Real-Time Notifications: Webhooks … for high-severity violations": --webhook delivers a denied call to a real receiver', async () => {
    const bodies: string[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d;
      });
      req.on('end', () => {
        bodies.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const policy = join(root, 'agent.config.json');
    writeFileSync(
      policy,
      JSON.stringify({ defaultPolicy: 'deny', rules: [{ pattern: `${ws}/**`, read: true, write: true }] }),
    );
    const child = spawnCli(
      [
        'mcp',
        '--dialect',
        'wunderland',
        '--policy',
        policy,
        '--cwd',
        ws,
        '--webhook',
        url,
        '--',
        process.execPath,
        FILESYSTEM_SERVER,
        ws,
      ],
      { ...process.env, HOME: home, TOOLGATE_WEBHOOKS_OUTBOX: join(root, 'outbox') },
    );
    try {
      const client = new ScriptedClient(childTransport(child));
      await client.start();
      await client.initialize({});
      const r = (
        await client.request('tools/call', {
          name: 'write_file',
          arguments: { path: '/etc/passwd', content: 'x' },
        })
      ).result as { isError?: boolean };
      expect(r.isError).toBe(true);
      const end = Date.now() + 10_000;
      while (bodies.length === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
      expect(bodies).toHaveLength(1);
      expect(bodies[0]).toContain('/etc/passwd');
    } finally {
      child.stdin.end();
      await exited(child);
      server.close();
    }
  }, 30_000);
});

/** A minimal real SMTP receiver on 127.0.0.1 (RFC 5321 commands, no TLS, no auth): enough for nodemailer. */
async function smtpReceiver() {
  const mails: string[] = [];
  const server = createNetServer((socket) => {
    let data = false;
    let buffer = '';
    let mail = '';
    socket.write('220 test ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let i = buffer.indexOf('\r\n');
      while (i !== -1) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (data) {
          if (line === '.') {
            data = false;
            mails.push(mail);
            mail = '';
            socket.write('250 OK queued\r\n');
          } else mail += `${line}\n`;
        } else {
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === 'EHLO' || verb === 'HELO') socket.write('250 test\r\n');
          else if (verb === 'DATA') {
            data = true;
            socket.write('354 go ahead\r\n');
          } else if (verb === 'QUIT') socket.end('221 bye\r\n');
          else socket.write('250 OK\r\n');
        }
        i = buffer.indexOf('\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, mails, close: () => server.close() };
}

describe('seed 001 e-mail from toolgate hook', () => {
  it('"High-severity violations trigger real-time notifications via webhooks and/or email": TOOLGATE_SMTP_* from hook', async () => {
    const smtp = await smtpReceiver();
    try {
      const policy = join(root, 'agent.config.json');
      writeFileSync(
        policy,
        JSON.stringify({ defaultPolicy: 'deny', rules: [{ pattern: `${ws}/**`, read: true, write: true }] }),
      );
      const r = await run(
        ['hook', 'gemini-cli', '--dialect', 'wunderland', '--policy', policy],
        geminiWrite('/etc/passwd'),
        {
          TOOLGATE_SMTP_HOST: '127.0.0.1',
          TOOLGATE_SMTP_PORT: String(smtp.port),
          TOOLGATE_EMAIL_TO: 'security@example.com',
          TOOLGATE_EMAIL_FROM: 'toolgate@example.com',
          TOOLGATE_WEBHOOKS_OUTBOX: join(root, 'outbox'),
        },
      );
      expect(JSON.parse(r.stdout).decision).toBe('deny');
      const end = Date.now() + 10_000;
      while (smtp.mails.length === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
      expect(smtp.mails).toHaveLength(1);
      expect(smtp.mails[0]).toContain('/etc/passwd');
    } finally {
      smtp.close();
    }
  });
});

describe('seed 000 (Folder Guard) from toolgate mcp', () => {
  it('logs "🔒 Folder guard enabled", runs the call on the normalised path, and scopes it to MCP_SESSION_ID', async () => {
    mkdirSync(join(ws, 'learnings'));
    writeFileSync(join(ws, 'learnings', 'n.md'), 'from the workspace\n');
    const policy = join(root, 'fg.json');
    writeFileSync(policy, JSON.stringify({ readPaths: [join(ws, 'learnings')], writePaths: [] }));
    const audit = join(root, 'audit.log');
    const child = spawnCli(
      [
        'mcp',
        '--dialect',
        'folderguard',
        '--policy',
        policy,
        '--workspace',
        ws,
        '--cwd',
        root, // the server's own directory is not the workspace: only the normalised path reaches the file
        '--relative-paths',
        'cwd',
        '--audit',
        audit,
        '--',
        process.execPath,
        FILESYSTEM_SERVER,
        root,
      ],
      { ...process.env, HOME: home, MCP_SESSION_ID: 'workflow-A' },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    const client = new ScriptedClient(childTransport(child));
    await client.start();
    await client.initialize({});
    const r = (
      await client.request('tools/call', { name: 'read_text_file', arguments: { path: 'learnings/n.md' } })
    ).result as { isError?: boolean; content: { text: string }[] };
    expect(r.isError).toBeFalsy();
    expect(r.content[0]!.text).toContain('from the workspace');
    child.stdin.end();
    await exited(child);
    expect(stderr).toContain(
      `🔒 Folder guard enabled - Read paths: [${join(ws, 'learnings')}], Write paths: []`,
    );
    const lines = records(audit);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.sessionId === 'workflow-A')).toBe(true);
  }, 30_000);
});
