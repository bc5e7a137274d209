import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DemoWorkspace {
  root: string;
  ws: string;
  home: string;
  outside: string;
  policy: string;
  audit: string;
}

/** The policy the demo guards with (native dialect): the project is writable, releases need a human. */
export const DEMO_POLICY = `version: 1
mode: tiered
default: deny
rules:
  - { pattern: "<workspace>/**", access: write, description: the project }
  - { pattern: "<workspace>/deploy/**", access: prompt, description: release files need a human }
  - { pattern: "**/.env", access: deny, description: secrets }
  - { pattern: "~/.ssh/**", access: deny, description: ssh keys }
`;

/**
 * A throwaway world: a project (with a .env and a symlink that leads out of it), a home with an SSH key, and
 * a directory outside everything. The filesystem server is given the whole root, so anything the gateway
 * lets through, the server would really do.
 */
export function demoWorkspace(): DemoWorkspace {
  const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-demo-')));
  const ws = join(root, 'project');
  const home = join(root, 'home');
  const outside = join(root, 'elsewhere');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(ws, 'deploy'));
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, 'README.md'), '# demo project\n');
  writeFileSync(join(ws, 'src', 'index.ts'), 'export const answer = 41;\n');
  writeFileSync(join(ws, '.env'), 'API_KEY=sk-demo\n');
  writeFileSync(join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\n');
  writeFileSync(join(outside, 'payroll.csv'), 'name,salary\n');
  symlinkSync(outside, join(ws, 'shared'));
  const policy = join(root, 'policy.yaml');
  writeFileSync(policy, DEMO_POLICY);
  return { root, ws, home, outside, policy, audit: join(root, 'audit', 'decisions.jsonl') };
}
