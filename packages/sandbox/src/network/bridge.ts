import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SandboxCompileError } from '../sandboxError.js';

/** The port the bridge listens on inside the sandbox's own loopback (HTTP, CONNECT and SOCKS5 on one port). */
export const PROXY_PORT = 3128;

// The inside end of the bridge: a listener on the sandbox's 127.0.0.1 that relays each connection to the
// proxy's unix socket, bind-mounted into the sandbox (a network namespace of its own has no route out; a unix
// socket is a file, and the mount namespace decides who sees it).
//
// Perl, not socat or node (see README, "Network"): perl-base is Essential on Debian and Ubuntu (always
// installed, on the system floor the sandbox mounts), starts in a few milliseconds, and — unlike socat started
// in the background, as Anthropic's sandbox-runtime does — it binds and listens *before* the command starts,
// so the command's first connection can never race the listener: the script listens, forks the relay
// (re-parented to the sandbox's init by a double fork, so a command's `wait` never waits for it), then
// `exec`s the command, which keeps the pid bubblewrap's status and the signal forwarding know. The relay is one
// process for every connection: non-blocking sockets, select(2), a buffer per direction (reading stops while the
// other side's buffer holds 256 KiB), half-closes passed on; it dies with the sandbox (pid namespace). A
// process per connection (fork) cost ≈ 6 ms per request at load average 30 (measured: 8.4–12.1 ms per request
// through the bridge against 2.3–5.4 ms straight to the proxy's socket and 1.5–4.3 ms with the host network). Failure to listen stops the run before the command starts (exit 125 with the reason).
// No modules (not even strict or Socket): loading Socket.pm tripled perl's start (measured: ~8 ms → ~30 ms
// on a loaded machine), so the addresses are packed by hand — Linux's AF_INET 2, AF_UNIX 1, SOCK_STREAM 1
// (every Linux architecture but MIPS), EINTR 4, EAGAIN 11, F_SETFL 4, O_NONBLOCK 2048 (x86, arm, riscv…).
// TCP_NODELAY (IPPROTO_TCP 6, option 1) on the client's connection: the proxy answers in several writes, and Nagle against the client's delayed ACK held each
// response ≈ 40 ms (measured: a sandboxed curl through the proxy took 38 ms more than the bridge's start).
const SCRIPT = `my($port,$path)=splice(@ARGV,0,2);shift @ARGV if @ARGV&&$ARGV[0] eq '--';
sub fail{print STDERR "toolgate: network bridge: $_[0]\\n";exit 125}
socket(my $l,2,1,0)or fail("socket: $!");
bind($l,pack('S n C4 x8',2,$port,127,0,0,1))or fail("bind 127.0.0.1:$port: $!");
listen($l,128)or fail("listen: $!");
my $k=fork;defined $k or fail("fork: $!");
if($k==0){exit 0 if fork;eval q{$SIG{PIPE}='IGNORE';open STDIN,'<','/dev/null';open STDOUT,'>','/dev/null';
my $to=pack('S Z108',1,$path);my $lf=fileno($l);fcntl($l,4,2048);my(%fh,%peer,%out,%eof);
sub drop{for my $f($_[0],$peer{$_[0]}){next unless defined $f&&$fh{$f};close $fh{$f};delete $fh{$f};delete $out{$f};delete $eof{$f}}delete $peer{$peer{$_[0]}//-1};delete $peer{$_[0]}}
while(1){my($r,$w)=('','');vec($r,$lf,1)=1;
for my $f(keys %fh){vec($r,$f,1)=1 if !$eof{$f}&&length($out{$peer{$f}})<262144;vec($w,$f,1)=1 if length $out{$f}}
if(select($r,$w,undef,undef)<0){next if $!+0==4;exit 0}
if(vec($r,$lf,1)){while(accept(my $c,$l)){setsockopt($c,6,1,1);my $u;
unless(socket($u,1,1,0)&&connect($u,$to)){close $c;next}
fcntl($c,4,2048);fcntl($u,4,2048);my($a,$b)=(fileno($c),fileno($u));
@fh{$a,$b}=($c,$u);@peer{$a,$b}=($b,$a);@out{$a,$b}=('','')}}
for my $f(keys %fh){next unless $fh{$f};my $p=$peer{$f};
if(vec($w,$f,1)&&length $out{$f}){my $n=syswrite($fh{$f},$out{$f});
if(defined $n){substr($out{$f},0,$n,'')}elsif($!+0!=11){drop($f);next}
shutdown($fh{$f},1)if !length $out{$f}&&$eof{$p}}
if(vec($r,$f,1)){my $n=sysread($fh{$f},my $buf,65536);
if($n){$out{$p}.=$buf}elsif(defined $n){$eof{$f}=1;shutdown($fh{$p},1)if !length $out{$p}}elsif($!+0!=11){drop($f);next}}
drop($f)if $eof{$f}&&$eof{$p}&&!length $out{$f}&&!length $out{$p}}}};exit 0}
waitpid($k,0);close $l;
exec {$ARGV[0]} @ARGV;print STDERR "toolgate: $ARGV[0]: $!\\n";exit 127;`;

/** Where perl lives (it must be visible inside the sandbox: the system floor is). */
function perl(): string {
  for (const file of ['/usr/bin/perl', '/bin/perl']) if (existsSync(file)) return file;
  throw new SandboxCompileError(
    'the policy restricts the network to an allowlist, and perl (perl-base), which bridges the proxy into the sandbox, is not installed',
  );
}

/** The compiled bridge's file name for this machine (packages/sandbox/native/bridge.c, built by `build`). */
export const NATIVE_BRIDGE = `toolgate-bridge-${process.platform}-${process.arch}`;

let nativeFile: string | null | undefined;

/**
 * The compiled bridge (../../native/bridge.c), when the package's build could compile it: it starts in
 * ≈ 0.5 ms where perl takes ≈ 2.5–3.5 ms before the command can start (measured in a sandbox: see the README).
 * Looked up once per process: it is this package's own file, not a path a policy judges.
 */
export function nativeBridge(): string | undefined {
  if (nativeFile === undefined) {
    nativeFile = null;
    try {
      const pkg = createRequire(import.meta.url).resolve('@toolgate/sandbox/package.json');
      const file = join(dirname(pkg), 'dist', 'native', NATIVE_BRIDGE);
      if ((statSync(file).mode & 0o111) !== 0) nativeFile = file;
    } catch {
      /* not built here (no C compiler): the perl bridge */
    }
  }
  return nativeFile ?? undefined;
}

/** Which bridge a sandbox uses: `TOOLGATE_SANDBOX_BRIDGE=perl` or `=native` forces one (tests, diagnosis). */
export function bridgeKind(): 'native' | 'perl' {
  const forced = process.env.TOOLGATE_SANDBOX_BRIDGE;
  if (forced === 'perl') return 'perl';
  if (forced === 'native') {
    if (nativeBridge() === undefined)
      throw new SandboxCompileError(
        `TOOLGATE_SANDBOX_BRIDGE=native, but the compiled bridge (${NATIVE_BRIDGE}) was not built: build @toolgate/sandbox with a C compiler (cc) installed`,
      );
    return 'native';
  }
  if (forced !== undefined && forced !== '')
    throw new SandboxCompileError(
      `TOOLGATE_SANDBOX_BRIDGE must be "native" or "perl", got ${JSON.stringify(forced)}`,
    );
  return nativeBridge() === undefined ? 'perl' : 'native';
}

/**
 * What runs the command inside a `proxy` sandbox, before the command: `BRIDGE PORT SOCKET --` (the compiled
 * bridge, at `inside`: where the sandbox mounts it) or `perl -e SCRIPT PORT SOCKET --`.
 */
export function bridgeCommand(socket: string, inside?: string): string[] {
  const args = [String(PROXY_PORT), socket, '--'];
  if (bridgeKind() === 'native') return [inside ?? nativeBridge()!, ...args];
  return [perl(), '-e', SCRIPT, ...args];
}

/**
 * The environment that points proxy-aware programs at the bridge. `socks5h`: the proxy resolves names (there
 * is no DNS inside). NO_PROXY keeps the sandbox's own loopback direct: a server the command starts on
 * localhost is the sandbox's, not the host's (the host's loopback is not reachable).
 */
export function proxyEnv(): Record<string, string> {
  const http = `http://127.0.0.1:${PROXY_PORT}`;
  const socks = `socks5h://127.0.0.1:${PROXY_PORT}`;
  const local = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: local,
    no_proxy: local,
  };
}
