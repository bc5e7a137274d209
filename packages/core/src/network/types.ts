/**
 * Network reach as data (issue 26). Extractors say which hosts a call reaches (`state.reach(…)`), policies
 * judge them with the same compiled rules the sandbox's proxy uses, and the decision carries them.
 */

/**
 * `read` fetches (GET/HEAD, `git clone|fetch|pull|ls-remote`, a package download); `write` sends data out
 * (POST/PUT/DELETE, an upload, `git push`, `curl -d @file`, `scp` to the host). Unknown ⇒ `write`.
 */
export type NetMethod = 'read' | 'write';

/** One place on the network a call reaches. */
export interface NetworkAccess {
  /** The URL, `host:port` or remote spec as the model wrote it (or as a config file gave it). */
  raw: string;
  /** Lower-case scheme (`https`, `http`, `ssh`, `git`, `ftp`, `tcp`, `udp`, `socks5`…), when known. */
  scheme?: string;
  /**
   * The host as the network sees it: lower case, IDNA (punycode) ASCII, IPv4 in dotted decimal (decimal,
   * octal and hex forms normalised as the WHATWG URL parser does), IPv6 without brackets, userinfo dropped.
   * `null` when it cannot be known (a variable, a name printed by another program): then `certain` is false.
   */
  host: string | null;
  /** The port, defaulted from the scheme when the URL names none (https 443, http 80, ssh 22, git 9418). */
  port?: number;
  method: NetMethod;
  /** Which extractor and which argument or token produced it (`shell:curl`, `args.url`, `shell:git:.git/config`). */
  origin: string;
  /** `false` when the host could not be determined with certainty: such a reach is never allowed. */
  certain: boolean;
  reason?: string;
}

/** What `parseTarget` makes of a URL or host spec. */
export interface NetTarget {
  scheme?: string;
  host: string | null;
  port?: number;
  certain: boolean;
  reason?: string;
}

/** What a compiled network policy is asked: one connection (or one URL) of a call or of a sandboxed run. */
export interface NetworkRequest {
  /** A normalised host (`normaliseHost`). */
  host: string;
  port?: number;
  scheme?: string;
  /** The proxy of the sandbox sees a CONNECT or a raw socket and cannot tell: it asks with `write`. */
  method: NetMethod;
}

export type NetworkAction = 'allow' | 'deny' | 'prompt';

export interface NetworkVerdict {
  action: NetworkAction;
  /** The rule that decided, as written (`*.npmjs.org read`), or `default: deny` when none matched. */
  rule: string;
  /** Where the rule came from (`/ws/toolgate.yaml#network.rules[2]`, `preset npm`). */
  source?: string;
}

/**
 * A policy's `network` section compiled once (the matcher core, folder-rules and the sandbox's proxy share).
 * `decide` is pure and does no I/O (no DNS: rules match names as written and addresses as addresses).
 */
export interface CompiledNetworkPolicy {
  /** `allow` with no rules: the network is not restricted (today's behaviour, every seed dialect). */
  readonly unrestricted: boolean;
  readonly defaultAction: NetworkAction;
  decide(request: NetworkRequest): NetworkVerdict;
  /** Host patterns that allow `method` (for the envelope's `allowed_hosts` and the model's description). */
  allowedHosts(method: NetMethod): string[];
  /** A stable hash of the section (audit and the sandbox's proxy config). */
  readonly hash: string;
}
