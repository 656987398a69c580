/**
 * Compares two versions of a schema and lists what changed, with pointers relative to the schema
 * root. Refs are followed on each side against its own model; a pair of refs is compared once and its
 * result reused (GitHub's events share hundreds of schemas), and a pair met again while it is being
 * compared (recursion) is cut there: its changes are reported at the outer occurrence.
 */
import type { ContractModel, JsonSchema } from '../model.js';
import { describeSchema } from './describe-schema.js';
import {
  asObj,
  escapePointer,
  fingerprint,
  flattenAllOf,
  isObj,
  type Obj,
  refKey,
  resolve,
  splitNull,
  typeCovered,
  typesOf,
  unionOf,
} from './schema-view.js';
import type { Audience, DiffRule } from './types.js';

export interface SchemaChange {
  readonly rule: DiffRule;
  readonly pointer: string;
  readonly keyword?: string;
  readonly message: string;
  readonly old?: unknown;
  readonly new?: unknown;
  /** Overrides the rule's audience when the context changes it (e.g. a field removed from a closed object). */
  readonly breaks?: readonly Audience[];
}

const UPPER_BOUNDS = ['maxLength', 'maxItems', 'maxProperties', 'maximum', 'exclusiveMaximum'];
const LOWER_BOUNDS = ['minLength', 'minItems', 'minProperties', 'minimum', 'exclusiveMinimum'];
/** Keywords whose change in either direction cannot be ordered: added tightens, removed relaxes. */
const OPAQUE = ['pattern', 'format', 'multipleOf', 'contentEncoding', 'contentMediaType'];
const DOCS = ['title', 'description', 'examples', 'deprecated', 'readOnly', 'writeOnly', 'default'];
const MAX_DEPTH = 64;

interface Frame {
  readonly key: string;
  tainted: boolean;
}

export class SchemaComparer {
  private readonly memo = new Map<string, readonly SchemaChange[]>();
  private readonly stack: Frame[] = [];

  constructor(
    private readonly oldModel: ContractModel,
    private readonly newModel: ContractModel,
  ) {}

  compare(oldSchema: JsonSchema, newSchema: JsonSchema): SchemaChange[] {
    const out: SchemaChange[] = [];
    this.walk(oldSchema, newSchema, '', out, 0);
    return out;
  }

  private walk(o: JsonSchema, n: JsonSchema, ptr: string, out: SchemaChange[], depth: number): void {
    if (depth > MAX_DEPTH) return;
    const ko = refKey(o);
    const kn = refKey(n);
    const bare = (s: JsonSchema) => isObj(s) && Object.keys(s).length === 1;
    if (ko !== undefined && kn !== undefined && bare(o) && bare(n)) {
      const key = `${ko}\u0000${kn}`;
      const cached = this.memo.get(key);
      if (cached === undefined) {
        const at = this.stack.findIndex((f) => f.key === key);
        if (at >= 0) {
          // Recursion: the outer comparison of this pair reports these changes; results computed
          // in between are incomplete, so they are not memoised.
          for (const frame of this.stack.slice(at + 1)) frame.tainted = true;
          return;
        }
        const frame: Frame = { key, tainted: false };
        this.stack.push(frame);
        const inner: SchemaChange[] = [];
        this.walkResolved(resolve(this.oldModel, o), resolve(this.newModel, n), '', inner, depth + 1);
        this.stack.pop();
        if (!frame.tainted) this.memo.set(key, inner);
        for (const change of inner) out.push({ ...change, pointer: ptr + change.pointer });
        return;
      }
      for (const change of cached) out.push({ ...change, pointer: ptr + change.pointer });
      return;
    }
    this.walkResolved(resolve(this.oldModel, o), resolve(this.newModel, n), ptr, out, depth + 1);
  }

  private walkResolved(o: JsonSchema, n: JsonSchema, ptr: string, out: SchemaChange[], depth: number): void {
    if (fingerprint(o) === fingerprint(n) && !containsRef(o)) return;
    const so = settle(this.oldModel, o);
    const sn = settle(this.newModel, n);
    this.compareDocs(so.docs, sn.docs, ptr, out);
    if (!so.nullable && sn.nullable)
      out.push({ rule: 'nullable-added', pointer: ptr, message: 'now nullable', old: false, new: true });
    if (so.nullable && !sn.nullable)
      out.push({
        rule: 'nullable-removed',
        pointer: ptr,
        message: 'no longer nullable',
        old: true,
        new: false,
      });
    const uo = unionOf(so.schema);
    const un = unionOf(sn.schema);
    if (uo || un) {
      this.compareUnion(so.schema, sn.schema, ptr, out, depth);
      return;
    }
    if (Array.isArray(so.schema.allOf) || Array.isArray(sn.schema.allOf)) {
      this.compareAllOf(so.schema, sn.schema, ptr, out, depth);
    }
    if (!this.compareTypes(so.schema, sn.schema, ptr, out)) return;
    this.compareEnum(so.schema, sn.schema, ptr, out);
    this.compareConstraints(so.schema, sn.schema, ptr, out);
    this.compareObject(so.schema, sn.schema, ptr, out, depth);
    this.compareArray(so.schema, sn.schema, ptr, out, depth);
  }

  private compareDocs(o: Obj, n: Obj, ptr: string, out: SchemaChange[]): void {
    for (const keyword of DOCS) {
      if (fingerprint(o[keyword]) === fingerprint(n[keyword])) continue;
      out.push({
        rule: 'docs-changed',
        pointer: ptr,
        keyword,
        message: `${keyword} ${o[keyword] === undefined ? 'added' : n[keyword] === undefined ? 'removed' : 'changed'}`,
        old: o[keyword],
        new: n[keyword],
      });
    }
  }

  /** Returns false when the types no longer overlap (nothing below is comparable). */
  private compareTypes(o: Obj, n: Obj, ptr: string, out: SchemaChange[]): boolean {
    const to = typesOf(o);
    const tn = typesOf(n);
    const added =
      tn === undefined ? (to === undefined ? [] : ['any']) : [...tn].filter((t) => !typeCovered(t, to));
    const removed =
      to === undefined ? (tn === undefined ? [] : ['any']) : [...to].filter((t) => !typeCovered(t, tn));
    if (added.length === 0 && removed.length === 0) return true;
    const old = to === undefined ? 'any' : [...to].sort().join(' | ');
    const now = tn === undefined ? 'any' : [...tn].sort().join(' | ');
    const rule: DiffRule =
      added.length > 0 && removed.length > 0
        ? 'type-changed'
        : added.length > 0
          ? 'type-widened'
          : 'type-narrowed';
    out.push({ rule, pointer: ptr, keyword: 'type', message: rule.replace('-', ' '), old, new: now });
    if (to === undefined || tn === undefined) return true;
    return [...tn].some((t) => typeCovered(t, to) || [...to].some((u) => typeCovered(u, tn)));
  }

  private compareEnum(o: Obj, n: Obj, ptr: string, out: SchemaChange[]): void {
    const eo = enumValues(o);
    const en = enumValues(n);
    if (eo === undefined && en === undefined) return;
    if (eo !== undefined && en !== undefined) {
      const old = new Map(eo.map((v) => [fingerprint(v), v]));
      const now = new Map(en.map((v) => [fingerprint(v), v]));
      for (const [key, value] of now) {
        if (!old.has(key))
          out.push({
            rule: 'enum-value-added',
            pointer: ptr,
            keyword: 'enum',
            message: `enum value ${key} added`,
            new: value,
          });
      }
      for (const [key, value] of old) {
        if (!now.has(key))
          out.push({
            rule: 'enum-value-removed',
            pointer: ptr,
            keyword: 'enum',
            message: `enum value ${key} removed`,
            old: value,
          });
      }
      return;
    }
    const rule: DiffRule = en === undefined ? 'constraint-relaxed' : 'constraint-tightened';
    out.push({
      rule,
      pointer: ptr,
      keyword: 'enum',
      message: en === undefined ? 'enum removed: any value of the type is allowed' : 'enum added',
      old: eo,
      new: en,
    });
  }

  private compareConstraints(o: Obj, n: Obj, ptr: string, out: SchemaChange[]): void {
    const bound = (keyword: string, upper: boolean) => {
      const a = typeof o[keyword] === 'number' ? (o[keyword] as number) : undefined;
      const b = typeof n[keyword] === 'number' ? (n[keyword] as number) : undefined;
      if (a === b) return;
      const relaxed = b === undefined || (a !== undefined && (upper ? b > a : b < a));
      const what =
        a === undefined ? 'added' : b === undefined ? 'removed' : upper === relaxed ? 'raised' : 'lowered';
      out.push({
        rule: relaxed ? 'constraint-relaxed' : 'constraint-tightened',
        pointer: ptr,
        keyword,
        message: `${keyword} ${what}`,
        old: a,
        new: b,
      });
    };
    for (const keyword of UPPER_BOUNDS) bound(keyword, true);
    for (const keyword of LOWER_BOUNDS) bound(keyword, false);
    for (const keyword of OPAQUE) {
      const a = o[keyword];
      const b = n[keyword];
      if (fingerprint(a) === fingerprint(b)) continue;
      const rule: DiffRule =
        a === undefined
          ? 'constraint-tightened'
          : b === undefined
            ? 'constraint-relaxed'
            : 'constraint-changed';
      const what = a === undefined ? 'added' : b === undefined ? 'removed' : 'changed';
      out.push({ rule, pointer: ptr, keyword, message: `${keyword} ${what}`, old: a, new: b });
    }
    if ((o.uniqueItems === true) !== (n.uniqueItems === true)) {
      const added = n.uniqueItems === true;
      out.push({
        rule: added ? 'constraint-tightened' : 'constraint-relaxed',
        pointer: ptr,
        keyword: 'uniqueItems',
        message: `uniqueItems ${added ? 'added' : 'removed'}`,
        old: o.uniqueItems,
        new: n.uniqueItems,
      });
    }
  }

  private compareObject(o: Obj, n: Obj, ptr: string, out: SchemaChange[], depth: number): void {
    const po = isObj(o.properties) ? o.properties : {};
    const pn = isObj(n.properties) ? n.properties : {};
    const ro = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
    const rn = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
    const oldClosed = o.additionalProperties === false;
    const newClosed = n.additionalProperties === false;
    const names = [...new Set([...Object.keys(po), ...Object.keys(pn), ...ro, ...rn])].sort();
    for (const name of names) {
      const p = `${ptr}/properties/${escapePointer(name)}`;
      const inOld = name in po || ro.has(name);
      const inNew = name in pn || rn.has(name);
      if (inOld && !inNew) {
        out.push({
          rule: 'field-removed',
          pointer: p,
          message: `field "${name}" removed${newClosed ? ' (and the object is closed: sending it is refused)' : ''}`,
          old: describeSchema((po[name] as JsonSchema | undefined) ?? true),
          ...(newClosed ? { breaks: ['receivers', 'senders'] as const } : {}),
        });
        continue;
      }
      if (!inOld && inNew) {
        const schema = describeSchema((pn[name] as JsonSchema | undefined) ?? true);
        if (rn.has(name)) {
          out.push({
            rule: 'required-field-added',
            pointer: p,
            message: `required field "${name}" added`,
            new: schema,
          });
        } else {
          out.push({
            rule: 'field-added',
            pointer: p,
            message: `optional field "${name}" added${oldClosed ? ' (the old schema was closed: old receivers refuse it)' : ''}`,
            new: schema,
            ...(oldClosed ? { breaks: ['receivers'] as const } : {}),
          });
        }
        continue;
      }
      if (ro.has(name) && !rn.has(name))
        out.push({
          rule: 'field-made-optional',
          pointer: p,
          message: `field "${name}" is now optional`,
          old: true,
          new: false,
        });
      if (!ro.has(name) && rn.has(name))
        out.push({
          rule: 'field-made-required',
          pointer: p,
          message: `field "${name}" is now required`,
          old: false,
          new: true,
        });
      if (name in po && name in pn)
        this.walk(po[name] as JsonSchema, pn[name] as JsonSchema, p, out, depth + 1);
    }
    if (!oldClosed && newClosed) {
      out.push({
        rule: 'additional-properties-closed',
        pointer: ptr,
        keyword: 'additionalProperties',
        message: 'additionalProperties: false added (undeclared fields are refused)',
        old: o.additionalProperties,
        new: false,
      });
    } else if (oldClosed && !newClosed) {
      out.push({
        rule: 'additional-properties-opened',
        pointer: ptr,
        keyword: 'additionalProperties',
        message: 'additionalProperties: false removed (undeclared fields may arrive)',
        old: false,
        new: n.additionalProperties,
      });
    } else if (isObj(o.additionalProperties) && isObj(n.additionalProperties)) {
      this.walk(
        o.additionalProperties,
        n.additionalProperties,
        `${ptr}/additionalProperties`,
        out,
        depth + 1,
      );
    }
  }

  private compareArray(o: Obj, n: Obj, ptr: string, out: SchemaChange[], depth: number): void {
    const io = o.items;
    const inew = n.items;
    if ((isObj(io) || typeof io === 'boolean') && (isObj(inew) || typeof inew === 'boolean')) {
      this.walk(io as JsonSchema, inew as JsonSchema, `${ptr}/items`, out, depth + 1);
    } else if (io !== undefined && inew === undefined) {
      out.push({
        rule: 'type-widened',
        pointer: `${ptr}/items`,
        message: 'items schema removed: any item',
        old: describeSchema(io as JsonSchema),
      });
    } else if (io === undefined && inew !== undefined) {
      out.push({
        rule: 'type-narrowed',
        pointer: `${ptr}/items`,
        message: 'items schema added',
        new: describeSchema(inew as JsonSchema),
      });
    }
    const to = Array.isArray(o.prefixItems) ? (o.prefixItems as JsonSchema[]) : [];
    const tn = Array.isArray(n.prefixItems) ? (n.prefixItems as JsonSchema[]) : [];
    for (let i = 0; i < Math.min(to.length, tn.length); i++) {
      this.walk(to[i] as JsonSchema, tn[i] as JsonSchema, `${ptr}/prefixItems/${i}`, out, depth + 1);
    }
    if (to.length !== tn.length) {
      out.push({
        rule: 'constraint-changed',
        pointer: `${ptr}/prefixItems`,
        keyword: 'prefixItems',
        message: `tuple length ${to.length} → ${tn.length}`,
        old: to.length,
        new: tn.length,
      });
    }
  }

  /** `allOf` members that could not be merged (unions inside): compared member by member. */
  private compareAllOf(o: Obj, n: Obj, ptr: string, out: SchemaChange[], depth: number): void {
    const ao = Array.isArray(o.allOf) ? (o.allOf as JsonSchema[]) : [o];
    const an = Array.isArray(n.allOf) ? (n.allOf as JsonSchema[]) : [n];
    if (ao.length === an.length) {
      for (let i = 0; i < ao.length; i++) {
        this.walk(ao[i] as JsonSchema, an[i] as JsonSchema, `${ptr}/allOf/${i}`, out, depth + 1);
      }
      return;
    }
    out.push({
      rule: ao.length < an.length ? 'type-narrowed' : 'type-widened',
      pointer: `${ptr}/allOf`,
      keyword: 'allOf',
      message: `allOf ${ao.length} → ${an.length} members`,
      old: ao.length,
      new: an.length,
    });
  }

  /**
   * Union members are paired by ref, then by identical text, then by identical type set, then (one
   * left on each side) with each other; the rest are added or removed members.
   */
  private compareUnion(o: Obj, n: Obj, ptr: string, out: SchemaChange[], depth: number): void {
    const uo = unionOf(o);
    const un = unionOf(n);
    const mo = uo ? uo.members : [o];
    const mn = un ? un.members : [n];
    const at = (i: number) => (un ? `${ptr}/${un.keyword}/${i}` : ptr);
    const leftOld = new Set(mo.keys());
    const leftNew = new Set(mn.keys());
    const pairs: [number, number][] = [];
    const match = (same: (a: JsonSchema, b: JsonSchema) => boolean) => {
      for (const j of [...leftNew]) {
        for (const i of leftOld) {
          if (!same(mo[i] as JsonSchema, mn[j] as JsonSchema)) continue;
          pairs.push([i, j]);
          leftOld.delete(i);
          leftNew.delete(j);
          break;
        }
      }
    };
    match((a, b) => refKey(a) !== undefined && refKey(a) === refKey(b));
    match((a, b) => fingerprint(a) === fingerprint(b));
    const types = (s: JsonSchema, model: ContractModel) => {
      const t = typesOf(flattenAllOf(model, asObj(resolve(model, s))));
      return t === undefined ? 'any' : [...t].sort().join('|');
    };
    match((a, b) => types(a, this.oldModel) === types(b, this.newModel));
    if (leftOld.size === 1 && leftNew.size === 1) {
      pairs.push([[...leftOld][0] as number, [...leftNew][0] as number]);
      leftOld.clear();
      leftNew.clear();
    }
    for (const [i, j] of pairs.sort((a, b) => a[1] - b[1])) {
      this.walk(mo[i] as JsonSchema, mn[j] as JsonSchema, at(j), out, depth + 1);
    }
    for (const j of leftNew) {
      out.push({
        rule: 'union-member-added',
        pointer: at(j),
        message: `union member ${describeSchema(mn[j] as JsonSchema)} added`,
        new: describeSchema(mn[j] as JsonSchema),
      });
    }
    for (const i of leftOld) {
      out.push({
        rule: 'union-member-removed',
        pointer: uo ? `${ptr}/${uo.keyword}/${i}` : ptr,
        message: `union member ${describeSchema(mo[i] as JsonSchema)} removed`,
        old: describeSchema(mo[i] as JsonSchema),
      });
    }
  }
}

/**
 * Resolves refs and merges allOf until the schema is a plain one, collecting "or null" on the way:
 * `anyOf: [{type: null}, {$ref: App}]` and `{$ref: App}` with App `type: [object, null]` are the same.
 */
function settle(model: ContractModel, schema: JsonSchema): { schema: Obj; nullable: boolean; docs: Obj } {
  let current = flattenAllOf(model, asObj(resolve(model, schema)));
  const outer = current;
  let nullable = false;
  for (let i = 0; i < 16; i++) {
    const split = splitNull(current);
    nullable ||= split.nullable;
    current = split.schema;
    if (refKey(current) === undefined) break;
    current = flattenAllOf(model, asObj(resolve(model, current)));
  }
  // Docs written next to a wrapper win; the target's own docs fill in (so unwrapping reports nothing).
  const docs: Record<string, unknown> = {};
  for (const keyword of DOCS) {
    const value = outer[keyword] ?? current[keyword];
    if (value !== undefined) docs[keyword] = value;
  }
  return { schema: current, nullable, docs };
}

function enumValues(schema: Obj): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  return undefined;
}

/** Equal text with refs inside may still differ (the referenced schemas changed). */
function containsRef(schema: JsonSchema): boolean {
  return fingerprint(schema).includes('"$ref"');
}
