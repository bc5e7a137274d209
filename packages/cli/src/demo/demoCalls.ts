import { join } from 'node:path';
import type { DemoWorkspace } from './demoWorkspace.js';

/** One scripted call: through the MCP gateway (`mcp`) or straight to `guard.check` (`shell`, no MCP server runs shell). */
export interface DemoCall {
  via: 'mcp' | 'shell';
  tool: string;
  args: Record<string, unknown>;
  /** What the row is meant to show. */
  story: string;
}

/** A dozen realistic calls an agent might make, good and bad. */
export function demoCalls(w: DemoWorkspace): DemoCall[] {
  const { ws, home, outside } = w;
  return [
    {
      via: 'mcp',
      tool: 'read_text_file',
      args: { path: join(ws, 'README.md') },
      story: 'read in the project',
    },
    { via: 'mcp', tool: 'list_directory', args: { path: join(ws, 'src') }, story: 'list in the project' },
    {
      via: 'mcp',
      tool: 'write_file',
      args: { path: join(ws, 'src', 'feature.ts'), content: 'export {};\n' },
      story: 'write in the project',
    },
    {
      via: 'mcp',
      tool: 'edit_file',
      args: { path: join(ws, 'src', 'index.ts'), edits: [{ oldText: '41', newText: '42' }] },
      story: 'edit in the project',
    },
    { via: 'mcp', tool: 'read_text_file', args: { path: join(home, '.ssh', 'id_rsa') }, story: 'SSH key' },
    {
      via: 'mcp',
      tool: 'read_text_file',
      args: { path: join(ws, '.env') },
      story: '.env inside the project',
    },
    {
      via: 'mcp',
      tool: 'read_text_file',
      args: { path: `${ws}/../elsewhere/payroll.csv` },
      story: 'traversal with ..',
    },
    {
      via: 'mcp',
      tool: 'read_text_file',
      args: { path: join(ws, 'shared', 'payroll.csv') },
      story: 'symlink escape',
    },
    {
      via: 'mcp',
      tool: 'move_file',
      args: { source: join(ws, 'src', 'index.ts'), destination: join(outside, 'index.ts') },
      story: 'move out of the project',
    },
    {
      via: 'mcp',
      tool: 'read_multiple_files',
      args: { paths: [join(ws, 'README.md'), join(ws, '.env')] },
      story: 'one bad path in a batch',
    },
    {
      via: 'mcp',
      tool: 'read_text_file',
      args: { path: 'README.md' },
      story: 'relative path (server differs)',
    },
    {
      via: 'mcp',
      tool: 'write_file',
      args: { path: join(ws, 'deploy', 'release.txt'), content: 'v1.0\n' },
      story: 'prompt, approved (elicitation)',
    },
    {
      via: 'mcp',
      tool: 'write_file',
      args: { path: join(ws, 'deploy', 'rollback.sh'), content: 'rm -rf /\n' },
      story: 'prompt, declined (elicitation)',
    },
    {
      via: 'shell',
      tool: 'bash',
      args: { command: 'cat README.md src/index.ts | wc -l' },
      story: 'shell in the project',
    },
    {
      via: 'shell',
      tool: 'bash',
      args: { command: 'tar czf /tmp/keys.tgz ~/.ssh' },
      story: 'shell exfiltration',
    },
  ];
}
