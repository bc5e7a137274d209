/**
 * The name a tool has on its own server: `mcp__desktop-commander__execute_command` is `execute_command`
 * (server names may contain `_`, so the tool name follows the last `__`). Other names are returned as is.
 */
export function serverToolName(name: string): string {
  if (!name.startsWith('mcp__')) return name;
  const at = name.lastIndexOf('__');
  return at > 4 && at + 2 < name.length ? name.slice(at + 2) : name;
}
