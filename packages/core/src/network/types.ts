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
