import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { userConfigDir } from '../config/discoverPolicy.js';
import { UsageError } from '../exitCodes.js';
import { detectProject } from './detectProject.js';
import { gitRemoteHosts } from './gitRemotes.js';
import { PRESET_SUMMARY, PRESETS, type Preset, renderPreset } from './presets.js';

export interface InitOptions {
  preset?: string;
  /** Write the user policy (~/.config/toolgate/policy.yaml) instead of the project's. */
  user?: boolean;
  dir?: string;
  force?: boolean;
  /** Print the policy; write nothing. */
  stdout?: boolean;
}

async function askPreset(out: NodeJS.WritableStream): Promise<Preset> {
  out.write('Which starter policy?\n');
  PRESETS.forEach((p, i) => void out.write(`  ${i + 1}. ${p} — ${PRESET_SUMMARY[p]}\n`));
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question('Choose 1-3 [1]: ')).trim();
    const chosen =
      answer === ''
        ? PRESETS[0]
        : (PRESETS[Number(answer) - 1] ?? (PRESETS as readonly string[]).find((p) => p === answer));
    if (!chosen)
      throw new UsageError(`no preset ${JSON.stringify(answer)}; choose one of ${PRESETS.join(', ')}`);
    return chosen as Preset;
  } finally {
    rl.close();
  }
}

/**
 * `toolgate init`: writes a starter policy for the current project (the git root or nearest project manifest
 * above the working directory) as `toolgate.yaml`, where every command and hook discovers it. Every rule is
 * explained in a comment; the policy carries tests `toolgate lint` runs. An existing policy is never
 * overwritten without `--force`.
 */
export async function runInit(
  options: InitOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  let preset: Preset;
  if (options.preset !== undefined) {
    if (!(PRESETS as readonly string[]).includes(options.preset))
      throw new UsageError(
        `--preset must be one of ${PRESETS.join(', ')}, got ${JSON.stringify(options.preset)}`,
      );
    preset = options.preset as Preset;
  } else if (process.stdin.isTTY && process.stdout.isTTY && !options.stdout) preset = await askPreset(out);
  else preset = 'standard';

  const project = detectProject(options.dir ?? process.cwd());
  // Probe bubblewrap once (a real `bwrap --version` and a trial namespace): the policy says what this machine can do.
  const { probeSandbox, upstreamFromEnv } = await import('@toolgate/sandbox');
  const probe = probeSandbox();
  const remotes = gitRemoteHosts(project.root);
  const proxy = upstreamFromEnv(process.env).upstream?.host;
  const text = renderPreset(
    preset,
    { ...project, remotes, ...(proxy !== undefined ? { proxy } : {}) },
    probe.ok ? { ok: true } : probe,
  );
  if (options.stdout) {
    out.write(text);
    return 0;
  }
  let file: string;
  if (options.user) {
    const dir = userConfigDir(process.env);
    if (!dir) throw new UsageError('--user needs HOME (or XDG_CONFIG_HOME) set to an absolute path');
    file = join(dir, 'policy.yaml');
  } else file = join(project.root, 'toolgate.yaml');
  const existing = options.user
    ? undefined
    : ['toolgate.yml', 'toolgate.json', 'toolgate.toml', '.toolgate']
        .map((n) => join(project.root, n))
        .find((p) => existsSync(p));
  if ((existsSync(file) || existing) && !options.force)
    throw new UsageError(
      `${existsSync(file) ? file : existing} already exists; keep it, or write over it with --force`,
    );
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  out.write(
    [
      `wrote ${file} (preset ${preset}: ${PRESET_SUMMARY[preset]})`,
      probe.ok
        ? '  sandbox: uncertain — what analysis cannot prove runs inside bubblewrap, compiled from the policy'
        : `  uncertain: prompt — bubblewrap is not usable here (${probe.reason.split('\n')[0]}), so unproven calls ask you`,
      `  project: ${project.root}${project.kinds.length ? ` (${project.kinds.join(', ')})` : ''}`,
      `  network: registries of the project, its git remotes${remotes.length ? ` (${remotes.join(', ')})` : ''} and localhost allowed; other hosts ${preset === 'strict' ? 'denied' : 'asked about'}`,
      `  other presets: ${PRESETS.filter((p) => p !== preset).join(', ')} (toolgate init --preset <name> --force)`,
      'next:',
      `  toolgate lint                        # runs the policy's own tests`,
      `  toolgate install claude-code         # or gemini-cli: guard the assistant's tool calls`,
      '',
    ].join('\n'),
  );
  return 0;
}
