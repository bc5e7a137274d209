/** All of stdin as text, bounded: a hook event is small, and an endless stream must not hang the hook. */
export async function readStdin(
  stream: NodeJS.ReadableStream = process.stdin,
  maxBytes = 16 * 1024 * 1024,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > maxBytes) throw new Error(`hook event on stdin exceeds ${maxBytes} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
