/**
 * A small JSON Schema (draft 2020-12) validator for the subset the rule schema uses: type, enum,
 * const, properties, required, additionalProperties, propertyNames, items, minItems, minLength,
 * minProperties, maxLength, maxItems, maxProperties, pattern, minimum, maximum, oneOf, anyOf and local
 * `$ref` to `#/$defs/…`.
 * Keywords outside the subset are ignored, so the schema file stays the single source of truth
 * and a full validator (e.g. ajv) could replace this one without changing the file.
 */

export type Schema = Record<string, unknown>;

export interface SchemaError {
  /** JSON Pointer into the instance, e.g. `/rules/2/match/gpu`. */
  path: string;
  message: string;
}

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

function typeMatches(v: unknown, t: string): boolean {
  const actual = typeOf(v);
  return actual === t || (t === 'number' && actual === 'integer');
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const escapePtr = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');

export function validate(root: Schema, value: unknown, schema: Schema = root, path = ''): SchemaError[] {
  const errors: SchemaError[] = [];
  const err = (message: string, at = path): void => void errors.push({ path: at || '/', message });

  if (typeof schema.$ref === 'string') {
    const m = /^#\/\$defs\/(.+)$/.exec(schema.$ref);
    const defs = root.$defs as Record<string, Schema> | undefined;
    const target = m && defs ? defs[m[1]] : undefined;
    if (!target) err(`unresolvable $ref ${schema.$ref}`);
    else errors.push(...validate(root, value, target, path));
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => typeMatches(value, t))) {
      err(`must be ${types.join(' or ')}, not ${typeOf(value)}`);
      return errors;
    }
  }
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) err(`must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    err(`must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}; got ${JSON.stringify(value)}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) err(`must not be shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) err(`must not be longer than ${schema.maxLength} characters`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) err(`${JSON.stringify(value)} does not match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) err(`must be >= ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) err(`must be <= ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) err(`must have at least ${schema.minItems} item(s)`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) err(`must have at most ${schema.maxItems} item(s)`);
    if (isObj(schema.items)) value.forEach((item, i) => errors.push(...validate(root, item, schema.items as Schema, `${path}/${i}`)));
  }
  if (isObj(value)) {
    const props = isObj(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
    if (Array.isArray(schema.required)) for (const r of schema.required as string[]) if (!(r in value)) err(`missing required property "${r}"`);
    if (typeof schema.minProperties === 'number' && Object.keys(value).length < schema.minProperties) err(`must have at least ${schema.minProperties} propert${schema.minProperties === 1 ? 'y' : 'ies'}`);
    if (typeof schema.maxProperties === 'number' && Object.keys(value).length > schema.maxProperties) err(`must have at most ${schema.maxProperties} propert${schema.maxProperties === 1 ? 'y' : 'ies'}`);
    for (const [k, v] of Object.entries(value)) {
      const at = `${path}/${escapePtr(k)}`;
      if (isObj(schema.propertyNames)) {
        const pn = schema.propertyNames as Schema;
        if (typeof pn.pattern === 'string' && !new RegExp(pn.pattern, 'u').test(k)) err(`property name ${JSON.stringify(k)} does not match ${pn.pattern}`, at);
      }
      if (k in props) errors.push(...validate(root, v, props[k], at));
      else if (schema.additionalProperties === false) err(`unknown property "${k}"`, at);
      else if (isObj(schema.additionalProperties)) errors.push(...validate(root, v, schema.additionalProperties, at));
    }
  }
  if (Array.isArray(schema.oneOf)) {
    const results = (schema.oneOf as Schema[]).map((s) => validate(root, value, s, path));
    const ok = results.filter((r) => r.length === 0).length;
    if (ok !== 1) {
      if (ok === 0) {
        // report the alternative that got furthest (fewest errors)
        const best = results.reduce((a, b) => (b.length < a.length ? b : a));
        errors.push(...best);
      } else err('matches more than one alternative');
    }
  }
  if (Array.isArray(schema.anyOf)) {
    const results = (schema.anyOf as Schema[]).map((s) => validate(root, value, s, path));
    if (!results.some((r) => r.length === 0)) errors.push(...results.reduce((a, b) => (b.length < a.length ? b : a)));
  }
  return errors;
}
