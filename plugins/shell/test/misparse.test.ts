import { describe, expect, it } from 'vitest';
import { extractAccesses } from '../src/index.js';
import { fakeContext, formatAll } from './helpers.js';

// Each construct bash-parser gets wrong (TOOLCHAIN.md) tried as an attack: what the shell really touches must
// appear, and data must not be mistaken for commands.

const ctx = fakeContext();
const run = (cmd: string) => formatAll(extractAccesses(cmd, ctx).accesses);

describe('bash-parser misparse guards', () => {
  it('heredoc: the body is data, the redirect on the same line is a write', () => {
    expect(run('cat <<EOF > /etc/cron.d/x\n* * * * * root rm -rf /\nEOF')).toEqual(['write /etc/cron.d/x']);
    expect(run("cat <<'EOF' | sh\nrm -rf /\nEOF")).toEqual(['write ?']);
  });

  it('heredoc: an unquoted body still runs its command substitutions', () => {
    expect(run('cat <<EOF\n$(cat /etc/shadow)\nEOF')).toEqual(['read /etc/shadow']);
    expect(run("cat <<'EOF'\n$(cat /etc/shadow)\nEOF")).toEqual([]);
  });

  it('heredoc: commands after the body are commands again', () => {
    expect(run('cat <<EOF\nx\nEOF\nrm /after')).toEqual(['write /after (link)']);
  });

  it('&> and &>> write their file (bash-parser reads `&` then `>`)', () => {
    expect(run('echo x &> /etc/x')).toEqual(['write /etc/x']);
    expect(run('echo x &>> /etc/x')).toEqual(['write /etc/x']);
  });

  it('((…)) is arithmetic, and what follows it is analysed', () => {
    expect(run('((i++)) && rm /after')).toEqual(['write /after (link)']);
    expect(run('(( $(rm /x) ))')).toEqual(['write /x (link)']);
  });

  it('<<< feeds data, not a path', () => {
    expect(run("grep x <<< '/etc/shadow'")).toEqual([]);
    expect(run('bash <<< "rm -rf /"')).toEqual(['write ?']);
  });

  it("$'…' decodes escapes before the path is judged", () => {
    expect(run("cat $'\\x2fetc\\x2fshadow'")).toEqual(['read /etc/shadow']);
  });

  it('process substitution runs its command', () => {
    expect(run('diff <(cat /etc/shadow) /dev/null')).toEqual(['read /etc/shadow']);
  });

  it('nested $(…$(…)) (bash-parser throws) is analysed level by level', () => {
    expect(run('echo $(echo $(cat /etc/shadow))')).toEqual(['read /etc/shadow']);
  });

  it('arrays and function f { (bash-parser throws) are parsed', () => {
    expect(run('a=(/x /y); rm /z')).toEqual(['write /z (link)']);
    expect(run('function f { rm /in-body; }')).toEqual(['write /in-body (link)']);
  });

  it('compound commands after do/then on one line (bash-parser throws) are parsed', () => {
    expect(run('for f in /a; do if true; then rm $f; fi; done')).toEqual(['write /a (link)']);
  });

  it('2>&1 followed by a redirect (bash-parser throws) keeps the redirect', () => {
    expect(run('cat /a 2>&1 > /etc/x')).toEqual(['read /a', 'write /etc/x']);
  });

  it('$"…" (bash-parser crashes) is a string', () => {
    expect(run('cat $"/etc/shadow"')).toEqual(['read /etc/shadow']);
  });

  it('a[0]=x (posix bash-parser calls it a command) is an assignment', () => {
    expect(run('a[0]=/x cat /y')).toEqual(['read /y']);
  });
});
