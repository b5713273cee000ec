/** An error the client caused or should hear about, with its HTTP status and a one-line message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The body of every error response: plain text, one message, never a stack trace. */
export function errorBody(status: number, message: string): string {
  return `${status} ${reasonPhrase(status)}: ${message}\n`;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  507: 'Insufficient Storage',
};

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}
