/**
 * Which ids name one thing wherever they appear. Claude Code mints record uuids (and the message
 * ids of the responses it writes itself) with a random UUID, and the API mints message, request
 * and tool use ids (`msg_…`, `req_…`, `toolu_…`) from 20 or more random characters: two records
 * carrying one of these are copies of one record (a resumed or forked session, a session copied
 * into another folder), so its node is shared by every session that holds it. Any other id was
 * written by hand or by a generator (`a1`, `msg_001`, `u-root`) and is unique only within its
 * session: two sessions reusing it may mean two different records, so its node is scoped by the
 * session, and no node ends up with two timestamps or two roles.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const API_ID = /^(msg|req|toolu|srvtoolu)_[0-9A-Za-z]{20,}$/;

/** Whether an id was minted at random (a UUID, or an API id), and so names one thing everywhere. */
export function mintedAtRandom(id: string): boolean {
  return UUID.test(id) || API_ID.test(id);
}

/** The IRI path of a node named by `id`: the id alone when it is unique everywhere, else under `session`. */
export function idPath(id: string, session: string): string[] {
  return mintedAtRandom(id) ? [id] : [session, id];
}

/**
 * Whether an API call's ids name it everywhere: its message id, and its request id if it has one,
 * minted by the API. Its node (and its usage's) is then shared by every session holding a copy.
 */
export function callMintedAtRandom(messageId: string | undefined, requestId: string | undefined): messageId is string {
  return messageId !== undefined && mintedAtRandom(messageId) && (requestId === undefined || mintedAtRandom(requestId));
}
