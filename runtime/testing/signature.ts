/** The call signatures of `testDelivery` (one type for both entries' bindings). */
import type { Contract, EventMapBase, PresetName } from '../contract.js';
import type { PresetTestOptions, TestDelivery, TestDeliveryOptions } from './types.js';

export interface TestDeliveryFunction {
  /** A delivery of `event` of `contract` (a generated module's, or `providerContract(…)`), typed per event. */
  <M extends EventMapBase, K extends keyof M & string>(
    contract: Contract<M>,
    event: K,
    payload: M[K],
    options: TestDeliveryOptions,
  ): Promise<TestDelivery>;
  /** A delivery of a provider preset's event; fields the preset's receiver needs are filled in when absent. */
  <P extends PresetName>(
    preset: P,
    event: string,
    payload: unknown,
    options: PresetTestOptions<P>,
  ): Promise<TestDelivery>;
}
