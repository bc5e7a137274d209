import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallContext } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';

/**
 * Bug pinned: a variable the script made unknown (`read X`, `X=$(…)`) was looked up as if unset — the shell
 * scope's `get(name) ?? inherited(name)` read its `null` as "not assigned". A model asking `cx.variable`
 * then took the program's default: `read CURL_HOME; curl …` skipped the curlrc a `$CURL_HOME` may name.
 */
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tg-unk-')));
const ctx: CallContext = {
  sessionId: 's',
  agentId: 'a',
  cwd: dir,
  workspace: dir,
  home: dir,
  env: { HOME: dir },
};

describe('a variable made unknown stays unknown to the program models', () => {
  it('attack: read CURL_HOME; curl — the config file is not known', () => {
    const ex = extractAccesses('read -r CURL_HOME < f; export CURL_HOME; curl -s https://a.example/', ctx);
    expect(ex.accesses.some((a) => !a.certain && /config file under a variable/.test(a.reason ?? ''))).toBe(
      true,
    );
  });
  it('twin: CURL_HOME set to a directory without a .curlrc is certain', () => {
    const ex = extractAccesses(`CURL_HOME=${dir}/none curl -s https://a.example/`, ctx);
    expect(ex.accesses.filter((a) => !a.certain)).toEqual([]);
  });
  it('attack: a proxy variable from a substitution is an uncertain reach', () => {
    const ex = extractAccesses('https_proxy=$(cat p) curl https://a.example/', ctx);
    expect(ex.network.some((n) => !n.certain && n.origin === 'shell:curl:proxy')).toBe(true);
  });
});
