/** What an adapter needs from a receiver (kept structural so adapters never import the pipeline). */
import type { ReceiveRequest, ReceiveResult } from '../receive/types.js';

export interface ReceiverLike {
  handle(request: ReceiveRequest): Promise<ReceiveResult>;
  /** Turn an error raised while reading the request (size cap, consumed body) into the answer. */
  reject(error: unknown): ReceiveResult;
  readonly maxBodyBytes: number;
}
