/**
 * A session's title, wherever a list names the session: the weave:title of its main transcript.
 * A session whose main file is absent (only sub-agent files, the main transcript weave:fileAbsent)
 * takes a sub-agent's title, marked as such, as the search index always gave it one; of several
 * sub-agents, the largest title, as of several copies of a main transcript (MAX).
 */

/** Before a title taken from a sub-agent's transcript. */
export const SUB_AGENT_MARK = 'sub-agent: ';

/** A sub-agent's title as its session's. */
export const subAgentTitle = (title: string) => `${SUB_AGENT_MARK}${title}`;

/**
 * SPARQL binding `name` to transcript `t`'s title where it titles its session: `t` is the main
 * transcript, or a sub-agent's whose main transcript is absent. Matches nothing for another
 * sub-agent's: put it in an OPTIONAL. `name` is a variable (`?name`); the pattern's own
 * variables are named after it.
 */
export function sessionTitlePattern(t: string, name: string): string {
  const [own, main] = [`${name}Own`, `${name}Main`];
  // Two branches, each cheap on its own: the main transcripts' titles, and the few absent ones' sub-agents'.
  return `{ ${t} weave:title ${name} FILTER NOT EXISTS { ${t} weave:parentTranscript ${main} } }
    UNION { ${main} weave:fileAbsent true . ${t} weave:parentTranscript ${main} ; weave:title ${own} BIND(CONCAT(${JSON.stringify(SUB_AGENT_MARK)}, ${own}) AS ${name}) }`;
}
