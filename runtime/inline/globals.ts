/**
 * The Web and Node globals the runtime uses, for a `--runtime inline` copy, which must type-check in
 * a project with neither lib.dom nor @types/node: the generator makes each copied file import the
 * names it uses from here. Each type is the global one when the project has it (lib.dom or
 * @types/node; read off `typeof globalThis`, so a copied receiver's `fetch(request)` takes the same
 * `Request` the app has), else the few members the runtime uses. Values are the globals themselves.
 */
type G = typeof globalThis;
type Global<K extends string, Fallback> = G extends { readonly [P in K]: { readonly prototype: infer T } }
  ? T
  : Fallback;
const g = globalThis as unknown as Record<string, unknown>;

declare global {
  // zod's declarations name `URL`: without lib.dom or @types/node it is this empty interface (with
  // either, theirs, unchanged), so the copy type-checks under `skipLibCheck: false` too.
  interface URL {}
}

interface ByteReader {
  read(): Promise<
    { readonly done: true; readonly value?: undefined } | { readonly done: false; readonly value: Uint8Array }
  >;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

export type Headers = Global<
  'Headers',
  {
    get(name: string): string | null;
    has(name: string): boolean;
    set(name: string, value: string): void;
    forEach(callback: (value: string, name: string) => void): void;
  }
>;
export type Request = Global<
  'Request',
  {
    readonly url: string;
    readonly method: string;
    readonly headers: Headers;
    readonly bodyUsed: boolean;
    readonly body: { getReader(): ByteReader } | null;
    arrayBuffer(): Promise<ArrayBuffer>;
  }
>;
export type Response = Global<
  'Response',
  {
    readonly ok: boolean;
    readonly status: number;
    readonly headers: Headers;
    text(): Promise<string>;
    json(): Promise<unknown>;
  }
>;
export type URLSearchParams = Global<
  'URLSearchParams',
  {
    get(name: string): string | null;
    has(name: string): boolean;
    set(name: string, value: string): void;
    [Symbol.iterator](): IterableIterator<[string, string]>;
  }
>;
// biome-ignore lint/suspicious/noRedeclare: the module's URL; the global interface above is only for zod's declarations
export type URL = Global<
  'URL',
  {
    readonly href: string;
    readonly protocol: string;
    readonly host: string;
    readonly hostname: string;
    readonly port: string;
    readonly pathname: string;
    readonly search: string;
    readonly hash: string;
    readonly origin: string;
    username: string;
    password: string;
    readonly searchParams: URLSearchParams;
    toString(): string;
  }
>;
export type TextEncoder = Global<'TextEncoder', { encode(text?: string): Uint8Array<ArrayBuffer> }>;
export type TextDecoder = Global<'TextDecoder', { decode(bytes?: Uint8Array | ArrayBuffer): string }>;
export type AbortSignal = Global<
  'AbortSignal',
  {
    readonly aborted: boolean;
    readonly reason: unknown;
    addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
    removeEventListener(type: 'abort', listener: () => void): void;
  }
>;
export type AbortController = Global<
  'AbortController',
  { readonly signal: AbortSignal; abort(reason?: unknown): void }
>;
export type CryptoKey = Global<'CryptoKey', { readonly type: string; readonly algorithm: unknown }>;
/** The JWK members the presets and key-pair schemes read and write (a subset of lib.dom's `JsonWebKey`, which has no value to read it off). */
export interface JsonWebKey {
  kty?: string;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
  d?: string;
  p?: string;
  q?: string;
  dp?: string;
  dq?: string;
  qi?: string;
  alg?: string;
  use?: string;
  kid?: string;
  ext?: boolean;
  key_ops?: string[];
}
type Algorithm = string | { readonly name: string; readonly [member: string]: unknown };
type Bytes = Uint8Array<ArrayBuffer> | ArrayBuffer;
export type SubtleCrypto = Global<
  'SubtleCrypto',
  {
    importKey(
      format: 'raw' | 'pkcs8' | 'spki',
      key: Bytes,
      algorithm: Algorithm,
      extractable: boolean,
      usages: string[],
    ): Promise<CryptoKey>;
    importKey(
      format: 'jwk',
      key: JsonWebKey,
      algorithm: Algorithm,
      extractable: boolean,
      usages: string[],
    ): Promise<CryptoKey>;
    sign(algorithm: Algorithm, key: CryptoKey, data: Bytes): Promise<ArrayBuffer>;
    verify(algorithm: Algorithm, key: CryptoKey, signature: Bytes, data: Bytes): Promise<boolean>;
    digest(algorithm: Algorithm, data: Bytes): Promise<ArrayBuffer>;
    exportKey(format: 'raw' | 'spki' | 'pkcs8', key: CryptoKey): Promise<ArrayBuffer>;
    exportKey(format: 'jwk', key: CryptoKey): Promise<JsonWebKey>;
    generateKey(algorithm: Algorithm, extractable: boolean, usages: string[]): Promise<unknown>;
  }
>;

type Encoding = 'utf8' | 'utf-8' | 'base64' | 'base64url' | 'hex' | 'latin1' | 'binary' | 'ascii';
interface BufferLike extends Uint8Array<ArrayBuffer> {
  toString(encoding?: Encoding): string;
  subarray(start?: number, end?: number): BufferLike;
}
export type Buffer = Global<'Buffer', BufferLike>;

export const Headers = g['Headers'] as new (init?: Record<string, string>) => Headers;
export const AbortController = g['AbortController'] as new () => AbortController;
export const Request = g['Request'] as new (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array | null },
) => Request;
export const Response = g['Response'] as new (
  body?: string | Uint8Array | null,
  init?: { status?: number; headers?: Record<string, string> },
) => Response;
export const URL = g['URL'] as {
  new (url: string, base?: string | URL): URL;
  canParse?(url: string): boolean;
};
export const URLSearchParams = g['URLSearchParams'] as new (
  init?: string | Record<string, string>,
) => URLSearchParams;
export const TextEncoder = g['TextEncoder'] as new () => TextEncoder;
export const TextDecoder = g['TextDecoder'] as new (
  label?: string,
  options?: { fatal?: boolean },
) => TextDecoder;
// Node's own `Buffer` constructor type when @types/node is there (its `isBuffer` narrows Node's Buffer).
export const Buffer = g['Buffer'] as G extends { readonly Buffer: infer C } ? C : BufferConstructor;
interface BufferConstructor {
  from(data: string, encoding?: Encoding): Buffer;
  from(data: Uint8Array | readonly number[]): Buffer;
  from(data: string | Uint8Array): Buffer;
  from(data: ArrayBufferLike, byteOffset?: number, length?: number): Buffer;
  concat(list: readonly Uint8Array[], totalLength?: number): Buffer;
  isBuffer(value: unknown): value is Buffer;
  byteLength(text: string, encoding?: Encoding): number;
  alloc(size: number): Buffer;
}
export const atob = g['atob'] as (data: string) => string;
export const btoa = g['btoa'] as (data: string) => string;

type Timer = { readonly __timer?: never } | number;
export const setTimeout = g['setTimeout'] as <A extends unknown[]>(
  callback: (...args: A) => void,
  ms?: number,
  ...args: A
) => Timer;
export const clearTimeout = g['clearTimeout'] as (timer: Timer | undefined) => void;
export const setInterval = g['setInterval'] as <A extends unknown[]>(
  callback: (...args: A) => void,
  ms?: number,
  ...args: A
) => Timer;
export const clearInterval = g['clearInterval'] as (timer: Timer | undefined) => void;

export const console = g['console'] as {
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  info(...data: unknown[]): void;
  log(...data: unknown[]): void;
  debug(...data: unknown[]): void;
};
export const performance = g['performance'] as { now(): number };
export const fetch = g['fetch'] as (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: unknown },
) => Promise<Response>;
export const webCrypto = g['crypto'] as {
  readonly subtle: SubtleCrypto;
  getRandomValues<T extends Uint8Array>(array: T): T;
  randomUUID(): string;
};
