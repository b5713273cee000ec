import type { Graph } from './graph.ts';

/** What every tool of `weave mcp` works with. */
export interface McpContext {
  storeDir: string;
  soul: string;
  graph: Graph;
}
