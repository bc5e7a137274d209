/**
 * The policy cannot be compiled into mounts (a glob's matches exceed the walk's bound, an unreadable
 * directory, a rule whose variables cannot be expanded). `toolgate run` refuses to start, and a sandboxed
 * call falls back to a deny naming this message — never to an unconfined run.
 */
export class SandboxCompileError extends Error {
  override readonly name = 'SandboxCompileError';
}
