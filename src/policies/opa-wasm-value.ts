/**
 * A Wasm evaluation's result as OPA's own `opa eval --format json` gives it (issue 39). OPA's Wasm dumps sets
 * as JSON arrays in its hash order and objects in insertion order, where OPA sorts both (a set by Rego's order
 * of values, an object by its keys, as Go's encoding/json does): a `deny contains msg` rule's messages would
 * come in another order. So the result is dumped in Rego's value syntax (`opa_eval` format 1: sets as `{a, b}`
 * or `set()`), read here, and written as JSON with sets sorted and object keys sorted.
 */
type Value = null | boolean | number | string | Value[] | RegoSet | { [key: string]: Value };

class RegoSet {
  constructor(readonly items: Value[]) {}
}

/** The JSON OPA would print for the value dump `text` (its numbers as they were written). */
export function canonicalJson(text: string): string {
  const reader = new Reader(text);
  const value = reader.value();
  reader.end();
  return JSON.stringify(toJson(value));
}

function toJson(value: Value): unknown {
  if (value instanceof RegoSet) return [...value.items].sort(compare).map(toJson);
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort(compareStrings)) sorted[key] = toJson(value[key]!);
    return sorted;
  }
  return value;
}

/** Rego's order of types: null, booleans, numbers, strings, arrays, objects, sets. */
function rank(value: Value): number {
  if (value === null) return 0;
  if (typeof value === 'boolean') return 1;
  if (typeof value === 'number') return 2;
  if (typeof value === 'string') return 3;
  if (Array.isArray(value)) return 4;
  if (value instanceof RegoSet) return 6;
  return 5;
}

/** Go compares strings by their UTF-8 bytes. */
function compareStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function compareLists(a: Value[], b: Value[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compare(a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** OPA's ast.Compare: by type, then by value; objects key by key (sorted), each key then its value. */
export function compare(a: Value, b: Value): number {
  const byType = rank(a) - rank(b);
  if (byType !== 0) return byType;
  if (a === null || b === null) return 0;
  if (typeof a === 'boolean' || typeof a === 'number') return Number(a) - Number(b);
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (Array.isArray(a)) return compareLists(a, b as Value[]);
  if (a instanceof RegoSet) return compareLists([...a.items].sort(compare), [...(b as RegoSet).items].sort(compare));
  const objectA = a as Record<string, Value>;
  const objectB = b as Record<string, Value>;
  const keysA = Object.keys(objectA).sort(compareStrings);
  const keysB = Object.keys(objectB).sort(compareStrings);
  for (let i = 0; i < Math.min(keysA.length, keysB.length); i++) {
    const order = compareStrings(keysA[i]!, keysB[i]!) || compare(objectA[keysA[i]!]!, objectB[keysB[i]!]!);
    if (order !== 0) return order;
  }
  return keysA.length - keysB.length;
}

/** Rego's value syntax as OPA's Wasm writes it: JSON, plus sets. */
class Reader {
  private at = 0;
  constructor(private readonly text: string) {}

  value(): Value {
    this.space();
    const char = this.text[this.at];
    if (char === '"') return this.string();
    if (char === '[') return this.list('[', ']');
    if (char === '{') return this.braces();
    if (this.text.startsWith('set()', this.at)) {
      this.at += 5;
      return new RegoSet([]);
    }
    for (const [word, value] of [['null', null], ['true', true], ['false', false]] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    const number = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 400));
    if (!number) throw new Error(`unexpected ${JSON.stringify(this.text.slice(this.at, this.at + 20))} in a Wasm result`);
    this.at += number[0].length;
    return Number(number[0]);
  }

  end(): void {
    this.space();
    if (this.at !== this.text.length) throw new Error('trailing text in a Wasm result');
  }

  private string(): string {
    const start = this.at;
    this.at++;
    while (this.text[this.at] !== '"') {
      if (this.at >= this.text.length) throw new Error('an unterminated string in a Wasm result');
      this.at += this.text[this.at] === '\\' ? 2 : 1;
    }
    this.at++;
    return JSON.parse(this.text.slice(start, this.at)) as string;
  }

  private list(open: string, close: string): Value[] {
    this.expect(open);
    const items: Value[] = [];
    this.space();
    if (this.text[this.at] === close) {
      this.at++;
      return items;
    }
    for (;;) {
      items.push(this.value());
      this.space();
      if (this.text[this.at] === ',') this.at++;
      else return this.expect(close), items;
    }
  }

  /** `{…}`: an object when its first element is followed by `:`, else a set. */
  private braces(): Value {
    this.expect('{');
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return {};
    }
    const first = this.value();
    this.space();
    if (this.text[this.at] !== ':') {
      const items = [first];
      for (;;) {
        this.space();
        if (this.text[this.at] === '}') {
          this.at++;
          return new RegoSet(items);
        }
        this.expect(',');
        items.push(this.value());
      }
    }
    const object: Record<string, Value> = {};
    let key = first;
    for (;;) {
      this.expect(':');
      if (typeof key !== 'string') throw new Error('an object key that is not a string in a Wasm result');
      object[key] = this.value();
      this.space();
      if (this.text[this.at] === '}') {
        this.at++;
        return object;
      }
      this.expect(',');
      key = this.value();
      this.space();
    }
  }

  private expect(char: string): void {
    this.space();
    if (this.text[this.at] !== char) throw new Error(`expected ${char} in a Wasm result`);
    this.at++;
  }

  private space(): void {
    while (this.text[this.at] === ' ' || this.text[this.at] === '\n') this.at++;
  }
}
