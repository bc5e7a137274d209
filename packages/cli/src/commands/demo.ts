import type { Command } from 'commander';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'Run a scripted agent session through the MCP gateway and a composed guard; print each decision',
    )
    .action(async () => {
      const { runDemo } = await import('../demo/runDemo.js');
      process.exitCode = await runDemo();
    });
}
