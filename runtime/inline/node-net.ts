/** node:net's types the runtime uses (see `node.ts`). */
export type LookupFunction = (
  hostname: string,
  options: { readonly all?: boolean; readonly family?: number },
  callback: (
    error: Error | null,
    address: string | readonly { address: string; family: number }[],
    family?: number,
  ) => void,
) => void;
