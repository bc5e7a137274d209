import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

// Issue 26 through the built CLI: check and explain show each host a call reaches with the rule that
// decided; lint runs network tests and warns on rules that never apply.
let root: string;
let ws: string;
let home: string;
const toolgate = (args: string[]) => runCli(args, { cwd: ws, home });

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-net-cli-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(ws);
  mkdirSync(home);
  writeFileSync(
    join(ws, 'toolgate.yaml'),
    `default: deny
rules:
  - { pattern: "<workspace>/**", access: write }
network:
  default: deny
  presets: [npm]
  rules:
    - { host: "*.docs.example", action: allow, method: read }
    - { host: evil.example, action: deny }
    - { host: evil.example, action: deny }
tests:
  - { host: "https://registry.npmjs.org/x", expect: allow }
  - { host: "https://a.docs.example/", method: write, expect: deny }
`,
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fetchCall = (url: string) => JSON.stringify({ tool: 'WebFetch', args: { url, prompt: 'summarise' } });

describe('toolgate check and explain: network reach', () => {
  it('check names the denied host, its rule and the allowed hosts (exit 1); the allowed twin exits 0', () => {
    const denied = toolgate(['check', '--call', fetchCall('https://evil.example/x')]);
    expect(denied.code, denied.stderr).toBe(1);
    expect(denied.stdout).toContain(
      'deny NETWORK_DENIED: WebFetch would fetch from evil.example:443: host matches deny rule deny evil.example',
    );
    expect(denied.stdout).toContain(
      'reach read "https://evil.example/x" -> evil.example:443 via folder-rules:args.url',
    );
    expect(denied.stdout).toMatch(/=> deny: deny evil\.example {3}\(.*toolgate\.yaml#network\.rules\[1\]\)/);
    expect(denied.stdout).toMatch(/allowed hosts: registry\.npmjs\.org, .*\*\.docs\.example/);
    const allowed = toolgate(['check', '--call', fetchCall('https://a.docs.example/guide')]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toMatch(/=> allow: allow \*\.docs\.example read/);
  });

  it('check --json carries the envelope fields and each reach with its verdict', () => {
    const r = toolgate(['check', '--json', '--call', fetchCall('https://registry.npmjs.org@evil.example/')]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as {
      envelope: { host: string; rule: string; allowed_hosts: string[] };
      network: Array<{ host: string; decision: string; rule: string }>;
    };
    expect(out.envelope).toMatchObject({ host: 'evil.example', rule: 'deny evil.example' });
    expect(out.network).toEqual([expect.objectContaining({ host: 'evil.example', decision: 'deny' })]);
  });

  it('explain shows the reach and the rule that decided it', () => {
    const r = toolgate(['explain', '--call', fetchCall('https://unlisted.example/')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'reach 1: read "https://unlisted.example/" -> unlisted.example:443 via folder-rules:args.url',
    );
    expect(r.stdout).toContain('=> deny: default: deny');
  });
});

describe('toolgate lint: network', () => {
  it('runs the network tests and warns on a rule that never applies', () => {
    const r = toolgate(['lint']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/tests 2 passed, 0 failed/);
    expect(r.stdout).toMatch(/network-rule-shadowed|never applies/);
    expect(r.stdout).toMatch(/network\.rules\[2\]/);
  });
});
