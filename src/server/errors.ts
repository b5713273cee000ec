/**
 * An error the client caused or should hear about, with its HTTP status and a one-line message.
 * Thrown on both sides of the thread boundary: a worker's operation throws it, the worker sends
 * its status and message back (messages.ts), and the pool throws it again on the main thread.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
