import type { FastifyPluginAsync } from 'fastify';

/**
 * What `fastify-plugin` does, in the few lines this server needs (no dependency for it): marks a
 * plugin with the symbols Fastify itself reads when it registers one.
 *
 * - `skip-override`: the plugin runs in the scope of whoever registers it, so its decorations,
 *   hooks and handlers reach the whole app. Without it Fastify encapsulates the plugin: what it
 *   adds stays inside (right for routes).
 * - `fastify.display-name` and `plugin-meta`: a name Fastify records once the plugin is
 *   registered, and what the plugin needs (`dependencies` by name, `decorators` by property);
 *   Fastify refuses to register a plugin whose needs are not registered before it.
 */

export interface PluginMeta {
  name: string;
  /** Plugins (by name) that must be registered first. */
  dependencies?: string[];
  /** Decorations that must exist when the plugin registers. */
  decorators?: { fastify?: string[]; request?: string[]; reply?: string[] };
}

/** A plugin whose decorations and hooks reach the whole app: `fp(plugin, meta)`. */
export function appWide<Options extends object>(meta: PluginMeta, plugin: FastifyPluginAsync<Options>): FastifyPluginAsync<Options> {
  return mark(plugin, meta, true);
}

/** A plugin Fastify encapsulates, still named and checked for what it needs: `fp(plugin, { ...meta, encapsulate: true })`. */
export function encapsulated<Options extends object>(meta: PluginMeta, plugin: FastifyPluginAsync<Options>): FastifyPluginAsync<Options> {
  return mark(plugin, meta, false);
}

function mark<P extends object>(plugin: P, meta: PluginMeta, skipOverride: boolean): P {
  return Object.assign(plugin, {
    [Symbol.for('skip-override')]: skipOverride,
    [Symbol.for('fastify.display-name')]: meta.name,
    [Symbol.for('plugin-meta')]: meta,
  });
}
