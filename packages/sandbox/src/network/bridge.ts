import { existsSync } from 'node:fs';
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
// `exec`s the command, which keeps the pid bubblewrap's status and the signal forwarding know. The relay forks
// one process per connection and copies bytes both ways with select(2); it dies with the sandbox (pid
// namespace). Failure to listen stops the run before the command starts (exit 125 with the reason).
// No modules (not even strict or Socket): loading Socket.pm tripled perl's start (measured: ~8 ms → ~30 ms
// on a loaded machine), so the addresses are packed by hand — Linux's AF_INET 2, AF_UNIX 1, SOCK_STREAM 1
// (every Linux architecture but MIPS), EINTR 4. TCP_NODELAY (IPPROTO_TCP 6, option 1) on the client's
// connection: the proxy answers in several writes, and Nagle against the client's delayed ACK held each
// response ≈ 40 ms (measured: a sandboxed curl through the proxy took 38 ms more than the bridge's start).
const SCRIPT = `my($port,$path)=splice(@ARGV,0,2);shift @ARGV if @ARGV&&$ARGV[0] eq '--';
sub fail{print STDERR "toolgate: network bridge: $_[0]\\n";exit 125}
socket(my $l,2,1,0)or fail("socket: $!");
bind($l,pack('S n C4 x8',2,$port,127,0,0,1))or fail("bind 127.0.0.1:$port: $!");
listen($l,128)or fail("listen: $!");
my $k=fork;defined $k or fail("fork: $!");
if($k==0){exit 0 if fork;$SIG{CHLD}='IGNORE';open STDIN,'<','/dev/null';open STDOUT,'>','/dev/null';
my $to=pack('S Z108',1,$path);
while(1){accept(my $c,$l)or next;my $p=fork;
if(defined $p&&$p==0){close $l;setsockopt($c,6,1,1);socket(my $u,1,1,0)or exit 1;connect($u,$to)or exit 1;
my($rin,$buf,$open)=('',undef,2);vec($rin,fileno($c),1)=1;vec($rin,fileno($u),1)=1;
my %to=(fileno($c)=>[$c,$u],fileno($u)=>[$u,$c]);
while($open){my $n=select(my $r=$rin,undef,undef,undef);if($n<0){next if $!+0==4;exit 0}
for my $fd(keys %to){next unless vec($r,$fd,1);my($f,$t)=@{$to{$fd}};my $got=sysread($f,$buf,65536);
if(!$got){shutdown($t,1);vec($rin,$fd,1)=0;$open--;next}
my $o=0;while($o<$got){my $w=syswrite($t,$buf,$got-$o,$o);exit 0 unless $w;$o+=$w}}}
exit 0}close $c}}
waitpid($k,0);close $l;
exec {$ARGV[0]} @ARGV;print STDERR "toolgate: $ARGV[0]: $!\\n";exit 127;`;

/** Where perl lives (it must be visible inside the sandbox: the system floor is). */
function perl(): string {
  for (const file of ['/usr/bin/perl', '/bin/perl']) if (existsSync(file)) return file;
  throw new SandboxCompileError(
    'the policy restricts the network to an allowlist, and perl (perl-base), which bridges the proxy into the sandbox, is not installed',
  );
}

/** What runs the command inside a `proxy` sandbox: `perl -e SCRIPT PORT SOCKET --`, before the command. */
export function bridgeCommand(socket: string): string[] {
  return [perl(), '-e', SCRIPT, String(PROXY_PORT), socket, '--'];
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
