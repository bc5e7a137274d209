import { NETWORK_PRESETS } from '@toolgate/core';

/** The registry preset each detected ecosystem needs (`package.json` ⇒ npm …). */
const ECOSYSTEM_PRESETS: Readonly<Record<string, string>> = {
  node: 'npm',
  python: 'pypi',
  rust: 'crates',
  go: 'go',
};

/** A git host whose preset covers its API and downloads too. */
const GIT_HOST_PRESETS: Readonly<Record<string, string>> = {
  'github.com': 'github',
  'gitlab.com': 'gitlab',
  'bitbucket.org': 'bitbucket',
};

export interface NetworkLines {
  /** The `network:` section, commented. */
  section: string;
  /** Test lines (`  - { host: …, expect: … }`) for the policy's `tests:`. */
  tests: string[];
}

/**
 * The starter `network` section: the package registries of the ecosystems found, the hosts of the project's
 * git remotes (their preset for GitHub, GitLab and Bitbucket), localhost (dev servers, test databases), and
 * the machine's own HTTP proxy when the environment names one (`proxy`: the sandbox's proxy goes through it
 * only if the policy allows it).
 * Anything else: `prompt` (a human decides; with nobody to ask that is a deny), `deny` under `strict`.
 */
export function networkLines(
  preset: 'standard' | 'strict' | 'open',
  kinds: readonly string[],
  remotes: readonly string[],
  proxy?: string,
): NetworkLines {
  const presets = [
    ...new Set([
      ...kinds.flatMap((k) => (ECOSYSTEM_PRESETS[k] ? [ECOSYSTEM_PRESETS[k]] : [])),
      ...remotes.flatMap((h) => (GIT_HOST_PRESETS[h] ? [GIT_HOST_PRESETS[h]] : [])),
    ]),
  ];
  const covered = new Set(presets.flatMap((p) => NETWORK_PRESETS[p] ?? []));
  const ownRemotes = remotes.filter((h) => !covered.has(h));
  const fallback = preset === 'strict' ? 'deny' : 'prompt';
  const rules = [
    '    # this machine: dev servers, test databases',
    '    - { host: localhost, action: allow }',
    ...(ownRemotes.length > 0 ? ["    # the project's git remotes (.git/config)"] : []),
    ...ownRemotes.map((h) => `    - { host: ${JSON.stringify(h)}, action: allow }`),
    ...(proxy !== undefined
      ? [
          "    # this machine's own HTTP proxy (HTTPS_PROXY when init ran): sandboxed runs go out through it",
          `    - { host: ${JSON.stringify(proxy)}, action: allow }`,
        ]
      : []),
  ];
  const presetNote =
    presets.length > 0
      ? `  # ${presets.map((p) => `${p}: ${(NETWORK_PRESETS[p] ?? []).join(', ')}`).join('; ')}\n  presets: [${presets.join(', ')}]\n`
      : '';
  const section = `# Hosts tool calls and sandboxed runs may reach (WebFetch URLs; curl, git, npm, pip, ssh in commands).
# The most specific matching host pattern decides (an exact name over \`*.name\` over \`*\`; then the rule with
# more of method/ports/schemes; then deny > prompt > allow). Names are matched as written, never resolved.
network:
  # Anything not named here: ${fallback === 'prompt' ? 'a human decides (with nobody to ask, denied)' : 'denied'}.
  default: ${fallback}
${presetNote}  rules:
${rules.join('\n')}
`;
  const tests = [
    '  - { host: "http://localhost:3000/", expect: allow }',
    `  - { host: "https://exfil.example.com/upload", method: write, expect: ${fallback} }`,
  ];
  if (presets.includes('npm')) tests.push('  - { host: "https://registry.npmjs.org/react", expect: allow }');
  if (presets.includes('pypi'))
    tests.push('  - { host: "https://pypi.org/simple/requests/", expect: allow }');
  for (const h of remotes.slice(0, 3)) tests.push(`  - { host: ${JSON.stringify(h)}, expect: allow }`);
  return { section, tests };
}
