/** Bad command-line usage: the CLI prints the message and exits with 2. */
export class UsageError extends Error {}
