/**
 * The WebAssembly memory of Oxigraph, which the package does not export: the memory of the first
 * instance created after this module loads is remembered. Import it before anything imports
 * oxigraph. (The project's TypeScript lib has no WebAssembly types, hence the narrow ones here.)
 */

interface Memory {
  buffer: ArrayBuffer;
}
type InstanceClass = new (module: unknown, imports?: unknown) => { exports: Record<string, unknown> };
const wasm = (globalThis as unknown as { WebAssembly: { Instance: InstanceClass; Memory: new (...a: never[]) => Memory } }).WebAssembly;

let memory: Memory | undefined;
const Instance = wasm.Instance;

function Remembering(module: unknown, imports?: unknown): { exports: Record<string, unknown> } {
  const instance = new Instance(module, imports);
  memory ??= Object.values(instance.exports).find((e) => e instanceof wasm.Memory) as Memory | undefined;
  return instance;
}
Remembering.prototype = Instance.prototype;
wasm.Instance = Remembering as unknown as InstanceClass;

/** Bytes of WebAssembly memory Oxigraph holds now (it grows and never shrinks). */
export function wasmBytes(): number {
  return memory?.buffer.byteLength ?? Number.NaN;
}
