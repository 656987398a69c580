/**
 * Whom each rule breaks. Payloads flow sender → receiver: a version that accepts MORE values breaks
 * receivers (they meet values their code was not written for); one that accepts FEWER breaks senders
 * (payloads they build are now refused). Changes that do both (string → integer) break both.
 */
import type { Audience, DiffRule } from './types.js';

const R: readonly Audience[] = ['receivers'];
const S: readonly Audience[] = ['senders'];
const BOTH: readonly Audience[] = ['receivers', 'senders'];
const SAFE: readonly Audience[] = [];

export const RULE_BREAKS: { readonly [rule in DiffRule]: readonly Audience[] } = {
  // Handlers written for it never run again; a sender still sending it is ignored by default.
  'event-removed': R,
  'event-added': SAFE,
  'event-deprecated': SAFE,
  'event-undeprecated': SAFE,
  // Routing: old receivers no longer recognise new deliveries, and vice versa.
  'event-match-changed': BOTH,
  'field-removed': R,
  'field-added': SAFE,
  'required-field-added': S,
  'field-made-required': S,
  'field-made-optional': R,
  'nullable-added': R,
  'nullable-removed': S,
  'type-widened': R,
  'type-narrowed': S,
  'type-changed': BOTH,
  // New enum members break exhaustive `switch`es over the generated union type.
  'enum-value-added': R,
  'enum-value-removed': S,
  'union-member-added': R,
  'union-member-removed': S,
  // A raised maxLength / lowered minimum breaks readers that sized storage or checks on the old bound.
  'constraint-relaxed': R,
  'constraint-tightened': S,
  // A changed pattern/format/multipleOf accepts some new values and refuses some old ones.
  'constraint-changed': BOTH,
  'additional-properties-closed': S,
  'additional-properties-opened': R,
  // Signing, envelope and selector are the wire protocol: both sides must agree.
  'signature-changed': BOTH,
  'envelope-changed': BOTH,
  'selector-changed': BOTH,
  'retry-changed': SAFE,
  'metadata-changed': SAFE,
  'docs-changed': SAFE,
};
