/**
 * Issue 22, the network family's inputs (the server-backed cases with a config file per case are in
 * plugins/shell/test/programs/networkInputs.test.ts): curl's and wget's config files found through their
 * variables, `-q` first, `-K` of a file that is not curl syntax, curl's `-O` name of a `file:` URL with a
 * query, `--create-dirs`, ssh's `-F` config that runs a ProxyCommand. No server: `file:` URLs, and the
 * refused local proxy of every run.
 */
export const networkInputs: string[] = [
  "printf 'output-dir = @OUT@\\n' > .curlrc; CURL_HOME=. curl -s -O file://@WS@/README.md",
  'CURL_HOME=. curl -s --create-dirs --output-dir dl -O file://@WS@/README.md',
  "printf 'output = @OUT@/c.txt\\n' > @HOME@/.curlrc; curl -q -s file://@WS@/README.md -o c.txt",
  'curl -s -K @HOME@/.bashrc file://@WS@/README.md',
  "curl -s 'file://@OUT@/secret.txt?x=1#y'",
  "curl -s -o got.md 'file://@WS@/README.md?download=1'",
  "curl -s -O 'file://@WS@/docs/guide.md#top' --output-dir @OUT@",
  "printf 'dir_prefix = @OUT@\\n' > w.rc; WGETRC=./w.rc wget -q http://127.0.0.1:9/x",
  'wget -q --no-config -O - http://127.0.0.1:9/x',
  'ssh -F @HOME@/.ssh/config -G localhost',
  'printf \'ProxyCommand sh -c "cat @OUT@/secret.txt"\\n\' > s.cfg; ssh -F s.cfg -o BatchMode=yes example.invalid',
];
