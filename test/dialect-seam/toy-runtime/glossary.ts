import type { Glossary } from '../../../src/dialect/glossary.ts';

export const TOY_GLOSSARY: Glossary = {
  dialect: 'toy-runtime/1',
  label: 'Toy Runtime',
  terms: [
    { model: 'session', runtime: 'file name', where: 'a .toylog file', read: true },
    { model: 'run', runtime: 'ask', where: 'an ask line', note: 'each ask opens one', read: true },
    { model: 'llm.call', runtime: 'reply', where: 'say and call lines', note: 'the lines sharing a reply id', read: true },
    { model: 'tool', runtime: 'call + result', where: 'call and result lines', read: true },
    { model: 'talk', note: 'an ask and what answers it', read: true },
  ],
  notCarried: [{ field: '# lines', why: 'comments' }],
  notSupplied: [{ what: 'token usage', why: 'the toy runtime counts none' }],
};
