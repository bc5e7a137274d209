/** The command text is not valid shell, or uses a construct nobody here can parse: fail closed. */
export class ShellParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShellParseError';
  }
}
