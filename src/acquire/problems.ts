/**
 * Something of the sources that could not be read as it should, named by file and line (0 for a
 * whole file or folder). Never carries what the source said.
 *
 * - malformed: a line that is not a record (kept as a weave:MalformedLine);
 * - pending: a last line still being written;
 * - warning: a record read, but a field of it kept as JSON only (it had another type);
 * - unreadable: a file or folder that could not be read (no permission, gone, a broken link):
 *   skipped, with the rest of the run going on;
 * - failed: a session whose reading failed inside Weave; skipped, its earlier graph kept;
 * - mismatch: a text the store holds that is not what the source line says (`weave verify`).
 */
export interface LineProblem {
  path: string;
  lineNo: number;
  kind: 'malformed' | 'pending' | 'warning' | 'unreadable' | 'failed' | 'mismatch';
  message: string;
  /** For `mismatch`: where in the record (a JSON pointer). */
  pointer?: string;
  /** For `failed`: where in Weave it failed, as stack frames (never the error's message, which can quote data). */
  frames?: string[];
}
