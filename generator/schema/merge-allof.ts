/**
 * `allOf` over object schemas → one object schema, for the zod renderers (types keep `A & B`).
 *
 * Why: zod's intersection parses the value once per member and then deep-merges the two outputs
 * (`mergeValues`), so `allOf: [{$ref: PullRequest}, {properties: {…}}]` walks a large payload three
 * times; on GitHub's `pull_request` events that merge was a third of validation time. One object with
 * the members' properties walks it once.
 *
 * When it is sound (same verdict as the intersection, for every value): every merged member is an
 * object whose extra keys are open (`additional: 'allow'`). A value then passes all members iff it is
 * an object, has every member's required keys, and each key declared by several members passes all of
 * their schemas (their intersection, itself merged when it can be) — exactly one such object. Not
 * merged (the intersection is kept):
 * - members that close their keys (`additionalProperties: false`) or constrain them with a schema: zod
 *   reconciles unrecognised keys across intersection members (the closed-allOf difference documented
 *   in README.md and warned about by generator/parse/closed-allof.ts), which a merged object would not
 *   reproduce;
 * - a key declared by several members where one of them may report unrecognised keys at its root
 *   (a closed object, through refs and unions): as a nested value of the intersection such an issue
 *   counts; as the root of a new intersection it would be reconciled away;
 * - references that cannot be resolved, or that resolve (through refs) back to themselves.
 * Members that are not objects (unions, strings, …) stay intersected with the merged object.
 * Object-count bounds combine: the larger `minProperties`, the smaller `maxProperties`.
 */
import type { SourcedSchema } from '../model.js';
import { buildNode, type Node, type PropertyNode } from './ir.js';

type ObjectNode = Extract<Node, { kind: 'object' }>;
type ArrayNode = Extract<Node, { kind: 'array' }>;

/** The intermediate form of a named schema, or undefined when it is not known. */
export type ResolveNode = (key: string) => Node | undefined;

const MAX_DEPTH = 32;

export function mergeAllOf(node: Node, resolve: ResolveNode | undefined): Node {
  if (resolve === undefined) return node;
  return new Merger(resolve).visit(node);
}

const merged = new WeakMap<object, Merger>();

/**
 * `mergeAllOf` for a module's schema context (`resolve` gives its named schemas): one merger per
 * context, so each named schema is resolved and merged once however many schemas refer to it.
 */
export function mergeAllOfIn(node: Node, ctx: { resolve?(key: string): SourcedSchema | undefined }): Node {
  const source = ctx.resolve;
  if (source === undefined) return node;
  let merger = merged.get(ctx);
  if (merger === undefined) {
    merger = new Merger((key) => {
      const target = source.call(ctx, key);
      // Built quietly: its warnings are reported where the named schema itself is declared.
      return target === undefined ? undefined : buildNode(target.schema, target.source, { warn: () => {} });
    });
    merged.set(ctx, merger);
  }
  return merger.visit(node);
}

class Merger {
  private readonly rootDeny = new Map<string, boolean>();
  /** Named schemas in merged form; `active` guards against references that lead back to themselves. */
  private readonly resolved = new Map<string, Node | undefined>();
  private readonly active = new Set<string>();
  /** Inlined named objects → their reference (used again when the object is not merged after all). */
  private readonly origin = new WeakMap<Node, Node>();
  constructor(private readonly resolve: ResolveNode) {}

  private target(key: string): Node | undefined {
    if (this.resolved.has(key)) return this.resolved.get(key);
    if (this.active.has(key)) return undefined;
    this.active.add(key);
    const raw = this.resolve(key);
    const node = raw === undefined ? undefined : this.visit(raw);
    this.active.delete(key);
    this.resolved.set(key, node);
    return node;
  }

  visit(node: Node): Node {
    switch (node.kind) {
      case 'object': {
        const properties = node.properties.map((p) => ({ ...p, node: this.visit(p.node) }));
        const additional =
          typeof node.additional === 'object' ? this.visit(node.additional) : node.additional;
        return { ...node, properties, additional };
      }
      case 'array':
        return { ...node, prefix: node.prefix.map((m) => this.visit(m)), items: this.visit(node.items) };
      case 'union':
        return {
          ...node,
          members: node.members.map((m) => this.visit(m)),
          ...(node.discriminator
            ? {
                discriminator: {
                  ...node.discriminator,
                  branches: node.discriminator.branches.map((b) => this.visit(b)),
                },
              }
            : {}),
        };
      case 'intersection':
        return this.intersection(node.members.map((m) => this.visit(m)));
      default:
        return node;
    }
  }

  private intersection(members: readonly Node[]): Node {
    const keep: Node = { kind: 'intersection', members };
    const flat = this.flatten(members, 0);
    if (flat === undefined) return keep;
    const objects: ObjectNode[] = [];
    let others: Node[] = [];
    for (const member of flat) {
      if (member.kind === 'object' && member.additional === 'allow') objects.push(member);
      else others.push(member);
    }
    if (others.some((m) => m.kind === 'object')) return keep;
    let object: Node | undefined;
    if (objects.length > 1) {
      object = this.merge(objects);
      if (object === undefined) return keep;
    } else if (objects[0] !== undefined) object = this.origin.get(objects[0]) ?? objects[0];
    // Where no member may reject unknown keys (which intersections reconcile), the other members
    // meet pairwise: `[null, integer, string] ∩ (integer | date-time)` is `integer | date-time`.
    const simplify = !flat.some((m) => this.mayDenyAtRoot(m, new Set()));
    if (simplify) others = this.meetAll(object === undefined ? others : [object, ...others]);
    else if (object !== undefined) others = [object, ...others];
    const changed = objects.length > 1 || others.length < flat.length;
    if (!changed) return keep;
    const [only] = others;
    if (others.length === 1 && only) return only;
    if (others.some((m) => m.kind === 'never')) return { kind: 'never' };
    return { kind: 'intersection', members: others };
  }

  /** Members folded pairwise where `meetPair` knows their intersection; the rest kept as they are. */
  private meetAll(members: readonly Node[]): Node[] {
    const out: Node[] = [];
    for (const member of members) {
      let placed = false;
      for (let i = 0; i < out.length && !placed; i++) {
        const met = this.meetPair(out[i] as Node, member, 0);
        if (met !== undefined) {
          out[i] = met;
          placed = true;
        }
      }
      if (!placed) out.push(member);
    }
    return out;
  }

  /** `a ∩ b` as one schema when it is simple to state (subsumption, disjoint types, unions distributed). */
  private meetPair(a: Node, b: Node, depth: number): Node | undefined {
    if (depth > 4) return undefined;
    if (this.within(a, b)) return a;
    if (this.within(b, a)) return b;
    if (disjoint(this.kinds(a), this.kinds(b))) return { kind: 'never' };
    const [union, other] = a.kind === 'union' ? [a, b] : b.kind === 'union' ? [b, a] : [undefined, b];
    if (union === undefined || union.discriminator !== undefined) return undefined;
    const parts: Node[] = [];
    for (const member of union.members) {
      const met = this.meetPair(member, other, depth + 1);
      if (met === undefined) return undefined;
      if (met.kind === 'union' && met.discriminator === undefined) parts.push(...met.members);
      else if (met.kind !== 'never') parts.push(met);
    }
    const distinct = parts.filter((n, i) => parts.findIndex((m) => sameNode(m, n)) === i);
    const [only] = distinct;
    if (distinct.length === 0) return { kind: 'never' };
    return distinct.length === 1 && only ? only : { kind: 'union', members: distinct };
  }

  /** The JSON types a schema's values may have; undefined when not known. */
  private kinds(node: Node, depth = 0): Set<string> | undefined {
    if (depth > MAX_DEPTH) return undefined;
    switch (node.kind) {
      case 'string':
      case 'boolean':
      case 'null':
      case 'object':
      case 'array':
        return new Set([node.kind]);
      case 'number':
        return new Set(['number']);
      case 'literal':
        return new Set(node.values.map((v) => (v === null ? 'null' : typeof v)));
      case 'ref': {
        const target = this.target(node.key);
        return target === undefined ? undefined : this.kinds(target, depth + 1);
      }
      case 'union': {
        const all = new Set<string>();
        for (const member of node.members) {
          const inner = this.kinds(member, depth + 1);
          if (inner === undefined) return undefined;
          for (const k of inner) all.add(k);
        }
        return all;
      }
      case 'never':
        return new Set();
      default:
        return undefined;
    }
  }

  /** Members with references resolved and nested intersections spread; undefined if one cannot be. */
  private flatten(members: readonly Node[], depth: number): Node[] | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const out: Node[] = [];
    for (const member of members) {
      if (member.kind === 'intersection') {
        const inner = this.flatten(member.members, depth + 1);
        if (inner === undefined) return undefined;
        out.push(...inner);
      } else if (member.kind === 'ref') {
        const target = this.target(member.key);
        if (target === undefined) return undefined;
        // A referenced object is inlined only to be merged; anything else stays a reference.
        if (target.kind !== 'object' && target.kind !== 'intersection') out.push(member);
        else if (target.kind === 'object') {
          this.origin.set(target, member);
          out.push(target);
        } else {
          const inner = this.flatten([target], depth + 1);
          if (inner === undefined) return undefined;
          out.push(...inner);
        }
      } else out.push(member);
    }
    return out;
  }

  private merge(objects: readonly ObjectNode[]): ObjectNode | undefined {
    const byName = new Map<string, PropertyNode[]>();
    for (const object of objects) {
      for (const property of object.properties) {
        const list = byName.get(property.name);
        if (list) list.push(property);
        else byName.set(property.name, [property]);
      }
    }
    const properties: PropertyNode[] = [];
    for (const [name, declared] of byName) {
      const [first] = declared;
      if (first === undefined) continue;
      if (declared.length === 1) {
        properties.push(first);
        continue;
      }
      const nodes = declared.map((p) => p.node);
      if (nodes.some((n) => this.mayDenyAtRoot(n, new Set()))) return undefined;
      const node = this.meet(nodes);
      properties.push({
        name,
        node,
        required: declared.some((p) => p.required),
        doc: first.doc,
      });
    }
    const mins = objects.flatMap((o) => (o.minProperties === undefined ? [] : [o.minProperties]));
    const maxes = objects.flatMap((o) => (o.maxProperties === undefined ? [] : [o.maxProperties]));
    return {
      kind: 'object',
      properties,
      additional: 'allow',
      ...(mins.length > 0 ? { minProperties: Math.max(...mins) } : {}),
      ...(maxes.length > 0 ? { maxProperties: Math.min(...maxes) } : {}),
    };
  }

  /**
   * The intersection of the schemas a key is declared with: a schema that accepts everything another
   * one accepts adds nothing and is dropped (`format: uri` ∩ string → `format: uri`); arrays intersect
   * their items; what remains is intersected (objects merged where that is sound).
   */
  private meet(nodes: readonly Node[]): Node {
    let list = nodes.filter((n, i) => nodes.findIndex((m) => sameNode(m, n)) === i);
    list = list.filter(
      (b, i) => !list.some((a, j) => j !== i && this.within(a, b) && (j < i || !this.within(b, a))),
    );
    const arrays = list.filter((n): n is ArrayNode => n.kind === 'array' && n.prefix.length === 0);
    if (arrays.length > 1) {
      const rest = list.filter((n) => !arrays.includes(n as ArrayNode));
      const mins = arrays.flatMap((a) => (a.minItems === undefined ? [] : [a.minItems]));
      const maxes = arrays.flatMap((a) => (a.maxItems === undefined ? [] : [a.maxItems]));
      const array: ArrayNode = {
        kind: 'array',
        prefix: [],
        items: this.meet(arrays.map((a) => a.items)),
        ...(mins.length > 0 ? { minItems: Math.max(...mins) } : {}),
        ...(maxes.length > 0 ? { maxItems: Math.min(...maxes) } : {}),
        unique: arrays.some((a) => a.unique),
      };
      list = [array, ...rest];
    }
    const [only] = list;
    return list.length === 1 && only ? only : this.intersection(list);
  }

  /** True when every value `a` accepts, `b` accepts too (a sound, incomplete test). */
  private within(a: Node, b: Node, depth = 0, named = false): boolean {
    if (depth > MAX_DEPTH) return false;
    if (sameNode(a, b) || b.kind === 'unknown' || a.kind === 'never') return true;
    if (a.kind === 'ref') {
      const target = this.target(a.key);
      return target !== undefined && this.within(target, b, depth + 1, true);
    }
    if (b.kind === 'ref') {
      const target = this.target(b.key);
      return target !== undefined && this.within(a, target, depth + 1, named);
    }
    if (a.kind === 'union') return a.members.every((m) => this.within(m, b, depth + 1, named));
    if (b.kind === 'union') return b.members.some((m) => this.within(a, m, depth + 1, named));
    if (a.kind === 'literal') return a.values.every((v) => accepts(b, v));
    switch (b.kind) {
      case 'string':
        return a.kind === 'string' && Object.keys(b).length === 1;
      case 'number':
        return a.kind === 'number' && Object.keys(b).length === 2 && (!b.integer || a.integer);
      case 'boolean':
      case 'null':
        return a.kind === b.kind;
      case 'object':
        // `{ type: object }` with nothing else: any object. Not for a named object: types render that
        // allOf as `{ [key: string]: unknown } & X`, which an interface X (no index signature) does
        // not satisfy, so the schema's annotation would not type-check.
        return (
          !named &&
          (a.kind === 'object' || a.kind === 'intersection') &&
          b.additional === 'allow' &&
          b.properties.length === 0 &&
          b.minProperties === undefined &&
          b.maxProperties === undefined &&
          (a.kind === 'object' || a.members.some((m) => m.kind === 'object'))
        );
      default:
        return false;
    }
  }

  /** Whether parsing with `node` may report unrecognised keys of the value itself (conservative). */
  private mayDenyAtRoot(node: Node, seen: Set<string>): boolean {
    switch (node.kind) {
      case 'object':
        return node.additional === 'deny';
      case 'union':
      case 'intersection':
        return node.members.some((m) => this.mayDenyAtRoot(m, seen));
      case 'ref': {
        if (seen.has(node.key)) return true;
        const known = this.rootDeny.get(node.key);
        if (known !== undefined) return known;
        const target = this.resolve(node.key);
        const answer = target === undefined || this.mayDenyAtRoot(target, new Set([...seen, node.key]));
        this.rootDeny.set(node.key, answer);
        return answer;
      }
      default:
        return false;
    }
  }
}

/** Whether a schema without constraints beyond its type accepts the literal `value`. */
function accepts(node: Node, value: string | number | boolean | null): boolean {
  switch (node.kind) {
    case 'literal':
      return node.values.some((v) => Object.is(v, value) || v === value);
    case 'string':
      return typeof value === 'string' && Object.keys(node).length === 1;
    case 'number':
      return (
        typeof value === 'number' &&
        Object.keys(node).length === 2 &&
        (!node.integer || Number.isInteger(value))
      );
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'union':
      return node.members.some((m) => accepts(m, value));
    default:
      return node.kind === 'unknown';
  }
}

function disjoint(a: Set<string> | undefined, b: Set<string> | undefined): boolean {
  return a !== undefined && b !== undefined && ![...a].some((kind) => b.has(kind));
}

function sameNode(a: Node, b: Node): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
