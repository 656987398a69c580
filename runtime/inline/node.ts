/**
 * Node built-ins for a `--runtime inline` copy, typed by the members the runtime uses so the copy
 * type-checks without @types/node: the generator points each copied `node:*` import at one of the
 * `node-*.ts` files, which take the module from `process.getBuiltinModule` (Node ≥ 20.16; the
 * runtime needs 20.19) instead of a static import their types would have to come from.
 */
interface Process {
  getBuiltinModule(id: string): unknown;
}

export function builtin<T>(id: string): T {
  const process = (globalThis as unknown as { process?: Process }).process;
  if (typeof process?.getBuiltinModule !== 'function') {
    throw new Error(`${id} is not available: this part of the runtime needs Node (20.19 or later)`);
  }
  return process.getBuiltinModule(id) as T;
}
