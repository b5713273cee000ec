import fp from 'fastify-plugin';
import { CONTEXT_PLUGIN } from './context.ts';

/**
 * What a resident server does around every request: it counts as activity for the idle timeout
 * until its answer is sent or its client goes, and it is answered from the store as it is now
 * (the follower reloads what another process wrote first).
 */
export const residentPlugin = fp(
  async (app) => {
    const { follower, idle } = app.weave;
    if (!follower && !idle) return;
    app.addHook('onRequest', async (_request, reply) => {
      // The response's close: sent in full, or its client gone.
      if (idle) reply.raw.once('close', idle.begin());
      const following = follower?.check();
      if (following) await following;
    });
  },
  { name: 'weave-resident', dependencies: [CONTEXT_PLUGIN] },
);
