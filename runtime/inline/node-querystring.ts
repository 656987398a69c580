/** node:querystring as the runtime uses it (see `node.ts`). */
import { builtin } from './node.js';

type Query = Record<string, string | string[] | undefined>;
export const { parse, stringify } = builtin<{ parse(text: string): Query; stringify(query: Query): string }>(
  'node:querystring',
);
