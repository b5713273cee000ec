import { links } from '../link/crossSession.ts';
import { conversation } from '../model/observer.ts';
import { READERS } from '../readers/registry.ts';
import { readerDerivation } from '../readers/run.ts';
import { searchDocuments, searchIndex } from '../search/derivation.ts';
import { othersDocuments } from '../search/others.ts';
import { usageRows } from '../usage/derivation.ts';
import type { Derivation } from './derivation.ts';

/**
 * Every derivation ingest runs, in the order it runs them: the record derivations while a session
 * is read, then per session those that read its graph, then those across sessions. A new one is
 * its file and one line here.
 */
export const DERIVATIONS: readonly Derivation[] = [
  conversation,
  searchDocuments,
  usageRows,
  ...READERS.map(readerDerivation),
  links,
  othersDocuments,
  searchIndex,
];
