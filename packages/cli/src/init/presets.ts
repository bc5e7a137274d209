import { networkLines } from './networkLines.js';

/** The starter policies `toolgate init` offers. */
export const PRESETS = ['standard', 'strict', 'open'] as const;
export type Preset = (typeof PRESETS)[number];

export const PRESET_SUMMARY: Record<Preset, string> = {
  standard: 'read and write the project; read system files; secrets denied; .env files need approval',
  strict: 'the project only; secrets and .env files denied; everything else denied',
  open: 'read anywhere except secrets; write only in the project',
};

interface Line {
  comment?: string;
  pattern: string;
  access: 'deny' | 'prompt' | 'read' | 'write';
  ops?: ReadonlyArray<'read' | 'write'>;
}

// Credentials an agent has no business reading; a prompt injection's first target.
const SECRETS: Line[] = [
  { comment: 'SSH keys and known hosts', pattern: '~/.ssh/**', access: 'deny' },
  { comment: 'cloud and cluster credentials', pattern: '~/.aws/**', access: 'deny' },
  { pattern: '~/.config/gcloud/**', access: 'deny' },
  { pattern: '~/.azure/**', access: 'deny' },
  { pattern: '~/.kube/**', access: 'deny' },
  { comment: 'GPG keys, registry and netrc tokens', pattern: '~/.gnupg/**', access: 'deny' },
  { pattern: '~/.docker/config.json', access: 'deny' },
  { pattern: '~/.netrc', access: 'deny' },
  { pattern: '~/.npmrc', access: 'deny' },
  { pattern: '~/.pypirc', access: 'deny' },
  { comment: 'the password database and sudo rules', pattern: '/etc/shadow', access: 'deny' },
  { pattern: '/etc/sudoers*', access: 'deny' },
];

// The guard's own configuration: an agent that may rewrite its policy, the assistant's hook settings or
// toolgate's caches can switch the guard off. Readable, never writable by the agent.
const GUARD_FILES: Line[] = [
  {
    comment:
      "the guard's own policy and the assistants' hook settings: the agent may read, never rewrite them",
    pattern: '<workspace>/toolgate.{yaml,yml,json,toml}',
    access: 'deny',
    ops: ['write'],
  },
  { pattern: '<workspace>/.toolgate/**', access: 'deny', ops: ['write'] },
  { pattern: '<workspace>/.claude/settings*.json', access: 'deny', ops: ['write'] },
  { pattern: '<workspace>/.gemini/settings.json', access: 'deny', ops: ['write'] },
  { pattern: '~/.claude/settings*.json', access: 'deny', ops: ['write'] },
  { pattern: '~/.gemini/settings.json', access: 'deny', ops: ['write'] },
  { pattern: '~/.config/toolgate/**', access: 'deny', ops: ['write'] },
  {
    comment: "toolgate's caches (compiled policy, compiled code)",
    pattern: '~/.cache/toolgate/**',
    access: 'deny',
    ops: ['write'],
  },
];

function ecosystemReads(kinds: readonly string[]): Line[] {
  const lines: Line[] = [];
  if (kinds.includes('node'))
    lines.push(
      { comment: 'node: package caches your tools read', pattern: '~/.npm/**', access: 'read' },
      { pattern: '~/.cache/**', access: 'read' },
    );
  if (kinds.includes('python'))
    lines.push(
      { comment: 'python: caches and the user site', pattern: '~/.cache/**', access: 'read' },
      { pattern: '~/.local/lib/**', access: 'read' },
    );
  if (kinds.includes('rust'))
    lines.push({ comment: 'rust: the cargo registry', pattern: '~/.cargo/**', access: 'read' });
  if (kinds.includes('go'))
    lines.push({ comment: 'go: the module cache', pattern: '~/go/pkg/**', access: 'read' });
  const seen = new Set<string>();
  return lines.filter((l) => !seen.has(l.pattern) && seen.add(l.pattern));
}

function rule(l: Line): string {
  const comment = l.comment ? `  # ${l.comment}\n` : '';
  const ops = l.ops ? `, ops: [${l.ops.join(', ')}]` : '';
  return `${comment}  - { pattern: ${JSON.stringify(l.pattern)}, access: ${l.access}${ops} }\n`;
}

/** A starter policy in the native dialect, every rule explained, with tests that `toolgate lint` runs. */
export function renderPreset(
  preset: Preset,
  project: { root: string; kinds: readonly string[]; remotes?: readonly string[]; proxy?: string },
  sandbox: { ok: true } | { ok: false; reason: string } = { ok: true },
): string {
  const network = networkLines(preset, project.kinds, project.remotes ?? [], project.proxy);
  const env: Line =
    preset === 'strict'
      ? { comment: '.env files hold secrets: denied', pattern: '<workspace>/**/.env*', access: 'deny' }
      : {
          comment: '.env files hold secrets: a human approves each access',
          pattern: '<workspace>/**/.env*',
          access: 'prompt',
        };
  const system: Line[] =
    preset === 'standard'
      ? [
          {
            comment: 'system files programs read (compilers, libraries, config)',
            pattern: '/usr/**',
            access: 'read',
          },
          { pattern: '/etc/**', access: 'read' },
          { pattern: '/opt/**', access: 'read' },
        ]
      : [];
  const tmp: Line = {
    comment: 'scratch space build tools and tests use',
    pattern: '/tmp/**',
    access: 'write',
  };
  const lines: Line[] = [
    {
      comment: 'the project: read and write (<workspace> is the project root the assistant reports)',
      pattern: '<workspace>/**',
      access: 'write',
    },
    env,
    ...(preset === 'strict' ? [] : [tmp, ...system, ...ecosystemReads(project.kinds)]),
    ...SECRETS,
    ...GUARD_FILES,
  ];
  const defaultWord = preset === 'open' ? 'read' : 'deny';
  const defaultWhy =
    preset === 'open'
      ? '# Anything no rule names may be read, not written.'
      : '# Anything no rule names is denied: the agent gets the reason and the allowed roots, and can ask you.';
  return `# toolgate policy for ${project.root}${project.kinds.length ? ` (${project.kinds.join(', ')})` : ''}
# Written by \`toolgate init --preset ${preset}\`: ${PRESET_SUMMARY[preset]}.
#
# How it decides (mode: tiered): every path a tool call touches — file-tool arguments, MCP arguments, paths
# inside shell commands — is resolved (~, $VARS, .., symlinks) and matched against these rules. The most
# restrictive matching rule wins: deny > prompt > read > write (write implies read). \`**\` also matches
# dotfiles. Check a call with \`toolgate check --call '{"tool":"read_file","args":{"path":"~/.ssh/id_rsa"}}'\`,
# see why with \`toolgate explain\`, and run the tests below with \`toolgate lint\`.
version: 1
mode: tiered
${defaultWhy}
default: ${defaultWord}
${sandboxLines(sandbox)}
${network.section}
rules:
${lines.map(rule).join('')}
# The policy's own proof: \`toolgate lint\` fails if a change breaks one of these.
tests:
  - { path: "~/.ssh/id_rsa", op: read, expect: deny }
  - { path: "~/.aws/credentials", op: read, expect: deny }
  - { path: "<workspace>/README.md", op: write, expect: allow }
  - { path: "<workspace>/.env", op: read, expect: ${preset === 'strict' ? 'deny' : 'prompt'} }
  - { path: "/srv/elsewhere/file", op: write, expect: deny }
  - { path: "<workspace>/toolgate.yaml", op: write, expect: deny }
  - { path: "<workspace>/.claude/settings.json", op: write, expect: deny }
${network.tests.join('\n')}

# Third-party plugins (installed in this project), loaded by the CLI, the hook and the MCP gateway alike:
# plugins:
#   - { package: "@acme/toolgate-plugin", options: {} }
# Coding-assistant hooks: answer a policy allow with the assistant's "allow" (skips its own prompt). Off: a
# policy allow leaves the decision to the assistant's own permission rules.
# hook:
#   approveAllowed: false
`;
}

// Issue 22, prove or sandbox: what analysis cannot prove (a script the agent wrote and runs, `npm test`,
// inline code) runs confined where bubblewrap works, and asks a human where it does not — never unconfined.
// Issue 23: what one sandboxed run may use. Generous for builds and test runs (a task is a process or a
// thread: a JVM or a parallel test runner has hundreds), tight enough to stop a fork bomb, a runaway
// allocation or a hung command. tmpSize is left out on purpose: it gives the sandbox a private /tmp, where a
// script the agent wrote to /tmp before the run would not be found.
const LIMITS = `# What one sandboxed run may use: tasks (processes and threads) at once, memory per process, how long it
# runs before it is ended (toolgate run then exits 124). \`tmpSize: 1GiB\` would also bound writes to /tmp, by
# giving the run a private /tmp of that size (the host's /tmp, and what was put there before, not visible).
limits: { processes: 1024, memory: 4GiB, wallTime: 30m }`;

function sandboxLines(sandbox: { ok: true } | { ok: false; reason: string }): string {
  if (sandbox.ok)
    return `# Calls analysis cannot prove (code the agent wrote and runs: \`python3 x.py\`, \`npm test\`, \`make\`; inline
# code) run inside an OS sandbox compiled from these same rules (bubblewrap works on this machine).
sandbox: uncertain
${LIMITS}`;
  return `# The OS sandbox is not usable here (${sandbox.reason.replace(/\s+/g, ' ').slice(0, 160)}): calls analysis cannot
# prove (code the agent wrote and runs, inline code) ask you instead. Install bubblewrap and set
# \`sandbox: uncertain\` to run them confined without a question.
uncertain: prompt`;
}
