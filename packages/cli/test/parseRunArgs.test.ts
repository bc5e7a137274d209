import { describe, expect, it } from 'vitest';
import { parseRunArgs } from '../src/run/parseRunArgs.js';

// The fast path of `toolgate run` reads its arguments without commander: what it reads must mean what
// commander would make of it, and anything else must be left to commander (undefined).
describe('parseRunArgs', () => {
  it('reads the flags of commands/run.ts in both forms, lists up to the next option, then the command', () => {
    expect(
      parseRunArgs([
        '--policy',
        'p.yaml',
        '--dialect=wolo',
        '--agent',
        'a',
        '--overlay',
        'o1.yaml',
        'o2.yaml',
        '--cwd',
        'c',
        '--workspace=w',
        '--approve',
        'x',
        '--approve=y',
        '--approve-write',
        'z',
        '--print',
        '--audit',
        'net.log',
        '--approvals=tty',
        '--',
        'sh',
        '-c',
        'echo --policy',
      ]),
    ).toEqual({
      command: ['sh', '-c', 'echo --policy'],
      options: {
        dialect: 'wolo',
        policy: 'p.yaml',
        agent: 'a',
        overlay: ['o1.yaml', 'o2.yaml'],
        cwd: 'c',
        workspace: 'w',
        audit: 'net.log',
        approvals: 'tty',
        approve: ['x', 'y'],
        approveWrite: ['z'],
        print: true,
      },
    });
  });

  it('leaves the dialect to be inferred and the policy to be discovered, as commands/run.ts does (issue 25)', () => {
    expect(parseRunArgs(['--policy', 'p', '--', 'true'])?.options.dialect).toBeUndefined();
    expect(parseRunArgs(['--', 'true'])).toEqual({ command: ['true'], options: {} });
  });

  it('leaves everything else to the full CLI', () => {
    for (const argv of [
      ['--help', '--policy', 'p', '--', 'true'],
      ['-h'],
      ['--policy', 'p', 'true'], // no --
      ['--policy', 'p', '--'], // no command
      ['--policy'], // no value
      ['--approve', '--policy', 'p', '--', 'true'], // an empty list
      ['--bogus', '--policy', 'p', '--', 'true'],
      ['--print=yes', '--policy', 'p', '--', 'true'],
    ])
      expect(parseRunArgs(argv), JSON.stringify(argv)).toBeUndefined();
  });
});
