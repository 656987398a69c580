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
    const flat = this.flatten(members, 0);
    const objects: ObjectNode[] = [];
    const others: Node[] = [];
    if (flat !== undefined) {
      for (const member of flat) {
        if (member.kind === 'object' && member.additional === 'allow') objects.push(member);
        else others.push(member);
      }
    }
    // Nothing gained (or something unknown): keep the members as written.
    if (flat === undefined || objects.length < 2 || others.some((m) => m.kind === 'object'))
      return { kind: 'intersection', members };
    const merged = this.merge(objects);
    if (merged === undefined) return { kind: 'intersection', members };
    return others.length === 0 ? merged : { kind: 'intersection', members: [merged, ...others] };
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
        else {
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
  private within(a: Node, b: Node, depth = 0): boolean {
    if (depth > MAX_DEPTH) return false;
    if (sameNode(a, b) || b.kind === 'unknown' || a.kind === 'never') return true;
    if (a.kind === 'ref') {
      const target = this.target(a.key);
      return target !== undefined && this.within(target, b, depth + 1);
    }
    if (b.kind === 'ref') {
      const target = this.target(b.key);
      return target !== undefined && this.within(a, target, depth + 1);
    }
    if (a.kind === 'union') return a.members.every((m) => this.within(m, b, depth + 1));
    if (b.kind === 'union') return b.members.some((m) => this.within(a, m, depth + 1));
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
        // `{ type: object }` with nothing else: any object.
        return (
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

function sameNode(a: Node, b: Node): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
