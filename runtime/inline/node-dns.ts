/** node:dns/promises as the runtime uses it (see `node.ts`). */
import { builtin } from './node.js';

export const { lookup } = builtin<{
  lookup(
    hostname: string,
    options: { all: true; verbatim?: boolean },
  ): Promise<{ readonly address: string; readonly family: number }[]>;
}>('node:dns/promises');
