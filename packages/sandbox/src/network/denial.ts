/** The text a denied client reads (curl prints it with -i, python's HTTPError carries it). */
export function denialText(host: string, port: number, rule: string, source?: string): string {
  return `toolgate: the sandbox's network policy denies ${host}:${port} (rule: ${rule}${source ? `, ${source}` : ''}). Only hosts the policy allows are reachable from the sandbox.\n`;
}

/** A complete HTTP/1.1 response with a text body; the connection closes after it. */
export function httpResponse(status: number, reason: string, body: string): string {
  const bytes = Buffer.byteLength(body);
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${bytes}\r\nConnection: close\r\nX-Toolgate: network-denied\r\n\r\n${body}`;
}
