/**
 * A 64-bit FNV-1a hash as hex (two 32-bit lanes), for cache keys and change detection on the hook path.
 * Not for security: loading node:crypto cost a hook call more than its whole decision.
 */
export function fnv64(data: string | Uint8Array): string {
  let h1 = 0x811c9dc5;
  let h2 = 0xcbf29ce4;
  if (typeof data === 'string') {
    for (let i = 0; i < data.length; i++) {
      const c = data.charCodeAt(i);
      h1 = Math.imul(h1 ^ (c & 0xff), 0x01000193);
      h2 = Math.imul(h2 ^ (c >>> 8), 0x01000193) ^ h1;
    }
  } else {
    for (let i = 0; i < data.length; i++) {
      h1 = Math.imul(h1 ^ data[i]!, 0x01000193);
      h2 = Math.imul(h2 ^ h1, 0x01000193);
    }
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}
