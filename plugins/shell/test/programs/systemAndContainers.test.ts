import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { fakeContext, formatAll } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tg-sys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ctx = fakeContext({}, dir);
const run = (cmd: string) => formatAll(extractAccesses(cmd, ctx, {}, dir).accesses);
const result = (cmd: string) => extractAccesses(cmd, ctx, {}, dir);

describe('system package managers write the system (they were unknown commands, allowed)', () => {
  it.each([
    ['sudo apt-get install -y jq', 'write /usr'],
    ['apt install ./tool.deb', 'write /var/lib/dpkg'],
    ['dpkg -i x.deb', 'write /usr'],
    ['dnf install -y git', 'write /var/lib/rpm'],
    ['apk add curl', 'write /usr'],
    ['pacman -Syu', 'write /var/lib/pacman'],
    ['brew install jq', 'write /opt/homebrew'],
    ['apt-get update', 'write /var/lib/dpkg'],
  ])('%s', (cmd, access) => expect(run(cmd)).toContain(access));
  it('queries and simulations touch nothing (benign twins)', () => {
    for (const cmd of [
      'apt list --installed',
      'apt-cache policy jq',
      'dpkg -l',
      'brew list',
      'apt-get -s install jq',
    ])
      expect(run(cmd).filter((a) => a.startsWith('write /usr'))).toEqual([]);
  });
});

describe('docker: build contexts and compose .env files are reads', () => {
  it('docker build reads its context as a subtree', () => {
    expect(run('docker build -t acme/widgets .')).toContain(`read* ${dir}`);
    expect(run('docker buildx build --no-cache -f Dockerfile ctx')).toContain(`read* ${dir}/ctx`);
  });
  it("compose reads the project's .env (when there is one) and the compose files", () => {
    expect(run('docker compose up -d')).not.toContain(`read ${dir}/.env`);
    writeFileSync(join(dir, '.env'), 'K=1\n');
    expect(run('docker compose up -d')).toContain(`read ${dir}/.env`);
    rmSync(join(dir, '.env'));
    expect(run('docker-compose -f other.yml --env-file /etc/x.env ps')).toEqual(
      expect.arrayContaining([`read ${dir}/other.yml`, 'read /etc/x.env']),
    );
  });
});

describe("docker run hands the container what its options name (docker-run(1)); its command is the container's", () => {
  it('attack (was allowed): --privileged, a host pid/ipc/uts/user namespace, devices, capabilities, --volumes-from, -H are uncertain', () => {
    for (const cmd of [
      'docker run --rm --privileged --pid=host alpine nsenter -t 1 -m cat etc/shadow',
      'docker run --rm --pid host alpine true',
      'docker run --rm --ipc=host alpine true',
      'docker run --rm --userns=host alpine true',
      'docker run --rm --device /dev/sda alpine true',
      'docker run --rm --cap-add SYS_ADMIN alpine true',
      'docker run --rm --security-opt apparmor=unconfined alpine true',
      'docker run --rm --volumes-from web alpine true',
      'docker -H tcp://10.0.0.5:2375 run --rm alpine true',
      'docker create --privileged alpine',
      'docker container run --rm --privileged alpine true',
    ])
      expect(result(cmd).uncertain, cmd).toBe(true);
  });

  it("a bind mount is the container's access to that host path: ro a read of the subtree, rw a write and uncertain", () => {
    expect(run('docker run --rm -v /etc:/k:ro alpine ls /k')).toContain('read* /etc');
    expect(run('docker run --rm --mount type=bind,source=/etc,target=/k,readonly alpine ls')).toContain(
      'read* /etc',
    );
    const rw = result('docker run --rm -v /srv/data:/data alpine true');
    expect(formatAll(rw.accesses)).toContain('write* /srv/data');
    expect(rw.uncertain).toBe(true);
    expect(run('docker run --rm -v~/.ssh:/k:ro alpine true')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^read\* .*\.ssh$/)]),
    );
  });

  it("twins: the command and paths inside the container, named volumes and tmpfs are not this machine's", () => {
    for (const cmd of [
      'docker run --rm alpine cat /etc/shadow',
      'docker run --rm -v data:/data alpine ls /data',
      'docker run --rm --mount type=volume,source=data,target=/data alpine true',
      'docker run --rm --tmpfs /run alpine true',
      'docker run -d -p 8080:80 --name web -e A=1 nginx',
    ]) {
      const r = result(cmd);
      expect(r.uncertain, cmd).toBe(false);
      expect(
        formatAll(r.accesses).filter((a) => /^(read|write)/.test(a)),
        cmd,
      ).toEqual([]);
    }
    expect(run('docker run --rm --env-file .env alpine env')).toContain(`read ${dir}/.env`);
  });
});

describe('docker compose runs what its compose files say (configuration the agent may have written)', () => {
  const withCompose = (text: string, name = 'compose.yaml') => {
    const d = mkdtempSync(join(tmpdir(), 'tg-compose-'));
    writeFileSync(join(d, name), text);
    return { d, r: (cmd: string) => extractAccesses(cmd, fakeContext({}, d), {}, d) };
  };
  it('attack (was allowed): a privileged service, a host namespace, a bind mount of / or of the project: uncertain', () => {
    for (const text of [
      'services:\n  x:\n    image: alpine\n    privileged: true\n',
      'services:\n  x:\n    image: alpine\n    pid: host\n',
      'services:\n  x:\n    image: alpine\n    volumes:\n      - /:/host\n',
      'services:\n  x:\n    image: alpine\n    volumes:\n      - "./src:/app/src:ro"\n',
      'services:\n  x:\n    image: alpine\n    volumes:\n      - type: bind\n        source: /etc\n        target: /e\n',
      'services:\n  x:\n    extends:\n      file: other.yml\n      service: y\n',
      'services: {x: {image: alpine, privileged: true}}\n',
      '{"services": {"x": {"image": "alpine", "volumes": ["/:/host"]}}}\n',
      'services:\n  x: {image: alpine, volumes: [/etc:/e]}\n',
    ]) {
      const { d, r } = withCompose(text);
      try {
        expect(r('docker compose up -d').uncertain, text).toBe(true);
        expect(r('docker-compose run --rm x').uncertain, text).toBe(true);
      } finally {
        rmSync(d, { recursive: true, force: true });
      }
    }
  });
  it('attack: COMPOSE_FILE (environment or the project .env) names another file: uncertain; twin without it', () => {
    const { d, r } = withCompose('services:\n  db:\n    image: postgres:16\n');
    try {
      writeFileSync(join(d, 'evil.yml'), 'services:\n  x:\n    image: alpine\n    privileged: true\n');
      expect(r('docker compose up -d').uncertain).toBe(false);
      expect(r('COMPOSE_FILE=evil.yml docker compose up -d').uncertain).toBe(true);
      writeFileSync(join(d, '.env'), 'A=1\nCOMPOSE_FILE=evil.yml\n');
      expect(r('docker compose up -d').uncertain).toBe(true);
      expect(r('docker compose -f compose.yaml up -d').uncertain).toBe(false);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
  it('twins: named volumes and ports only are certain; ps/logs/down do not run containers', () => {
    const { d, r } = withCompose(
      'services:\n  db:\n    image: postgres:16\n    ports:\n      - "5432:5432"\n    volumes:\n      - pgdata:/var/lib/postgresql/data\nvolumes:\n  pgdata: {}\n',
    );
    try {
      expect(r('docker compose up -d').uncertain).toBe(false);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
    const priv = withCompose(
      'services:\n  x:\n    image: alpine\n    privileged: true\n',
      'docker-compose.yml',
    );
    try {
      for (const cmd of ['docker compose ps', 'docker compose logs x', 'docker compose down'])
        expect(priv.r(cmd).uncertain, cmd).toBe(false);
      expect(priv.r('docker compose up').uncertain).toBe(true);
    } finally {
      rmSync(priv.d, { recursive: true, force: true });
    }
  });
});

describe('extraction creates names nobody has seen: the worst case applies', () => {
  it('tar -x and unzip of an archive they cannot read mark their target as unknown beneath', () => {
    for (const cmd of [
      'curl -so /tmp/a.tgz URL && tar xzf /tmp/a.tgz',
      'unzip -o - < x',
      'cat a.tar | tar -x -C out',
    ]) {
      const w = result(cmd).accesses.find((a) => a.op === 'write' && a.scope === 'subtree');
      expect(w?.unknownContents, cmd).toMatch(/creates the names/);
    }
  });
});

describe('global installs by other names', () => {
  it('pnpm add -g, yarn global add and npm link are global writes (uncertain)', () => {
    for (const cmd of ['pnpm add -g typescript', 'pnpm add --global x', 'npm link', 'yarn global add x'])
      expect(result(cmd).uncertain, cmd).toBe(true);
  });
  it('npm link PKG (into this project) stays certain', () => {
    expect(result('npm link ../lib').accesses.some((a) => /global/.test(a.reason ?? ''))).toBe(false);
  });
});

describe('a shell script run by its path is analysed as shell', () => {
  it('#!/bin/sh and #!/usr/bin/env bash scripts: what they do is judged', () => {
    writeFileSync(join(dir, 'a.sh'), '#!/bin/sh\ncat /etc/shadow\n');
    writeFileSync(join(dir, 'b.sh'), '#!/usr/bin/env bash\necho x > /etc/cron.d/x\n');
    chmodSync(join(dir, 'a.sh'), 0o755);
    chmodSync(join(dir, 'b.sh'), 0o755);
    expect(run('./a.sh')).toContain('read /etc/shadow');
    expect(run(`${dir}/b.sh`)).toContain('write /etc/cron.d/x');
  });
  it('a program a whole-tree write installs stays a program (python3 -m venv .venv && .venv/bin/pip …)', () => {
    expect(result('python3 -m venv .venv && .venv/bin/pip install requests').uncertain).toBe(false);
  });
  it('a script the same line writes first is uncertain (attack)', () => {
    expect(
      result("printf '#!/bin/sh\\ncat /etc/shadow\\n' > /tmp/t.sh; chmod +x /tmp/t.sh && /tmp/t.sh")
        .uncertain,
    ).toBe(true);
  });
  it('a plain script stays certain (benign twin)', () => {
    writeFileSync(join(dir, 'ok.sh'), '#!/bin/sh\necho hello\n');
    expect(result('./ok.sh').uncertain).toBe(false);
  });
});

describe('mktemp: the drawn name is judged as every name of that shape in its directory', () => {
  it('mktemp -p DIR TEMPLATE, mktemp TEMPLATE, plain mktemp', () => {
    expect(run('mktemp -p . tmp.XXXX')).toEqual(
      expect.arrayContaining([`write ${dir}/tmp.XXXX`, `write* ${dir}`]),
    );
    expect(run('mktemp build.XXXXXX')).toContain(`write ${dir}/build.XXXXXX`);
    expect(run('mktemp')).toEqual(expect.arrayContaining(['write* /tmp']));
    expect(run('mktemp -d --tmpdir=/etc x.XXX')).toEqual(
      expect.arrayContaining(['write /etc/x.XXX', 'write* /etc']),
    );
    expect(run('mktemp -u')).toEqual([]);
  });
  it('the walk reaches only names of the template shape', () => {
    const w = result('mktemp -p . tmp.XXXX').accesses.find((a) => a.scope === 'subtree');
    expect(w?.filter?.skips('.env', false)).toBe(true);
    expect(w?.filter?.skips('tmp.a1B2', false)).toBe(false);
  });
});
