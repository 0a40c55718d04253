import { createHash, type Hash } from 'node:crypto';
import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import { jsonParser } from 'stream-json/core/parser.js';
import { addResourceChange, EMPTY_PLAN_SUMMARY, finishSummary, type PlanSummary } from './plan-summary.js';

/**
 * Checks an uploaded plan JSON as it streams past, never holding it whole nor any value of it: the bytes
 * are decoded as strict UTF-8 and tokenized by stream-json (keys, strings and numbers come in pieces too,
 * so a huge string costs no more than a small one), and only what the plan counts need is kept (the
 * actions of the entry being read, and digests of its addresses). Memory is bounded by the depth bound,
 * time by the size bound (checked while spooling). Runs in a worker (plan-json-checker.ts), off the event loop.
 *
 * The document must be JSON, an object with a string `format_version` (what every `terraform show -json`
 * plan has), nest at most `maxDepth` arrays and objects, and hold at most `maxValues` values (every
 * object, array, string, number, true, false and null counts one): bounds that keep whoever reads the plan
 * after us (run tasks, policy engines, JSON parsers that recurse) safe. Duplicate keys: the last one
 * counts, as JSON.parse has it.
 */
export interface PlanJsonBounds {
  maxDepth: number;
  maxValues: number;
}

/** Why an upload is refused: not a plan JSON document (`detail` says why), or beyond a bound. */
export type PlanJsonProblem = { kind: 'invalid'; detail: string } | { kind: 'too-deep'; limit: number } | { kind: 'too-many-values'; limit: number };

/** The outcome of a check: the plan's summary, or the first problem found. */
export type PlanJsonCheck = { ok: true; summary: PlanSummary } | { ok: false; problem: PlanJsonProblem };

type Token = { name: string; value?: unknown };

/** What a value is to the plan counts; everything else is 'other' and only counted and nested. */
type Role = 'root' | 'format_version' | 'changes' | 'entry' | 'address' | 'previous_address' | 'change' | 'actions' | 'action' | 'importing' | 'other';

interface Frame {
  role: Role;
  /** In an object: the last key read (at most KEY_LIMIT characters; longer keys matter to nothing here). */
  key: string | undefined;
}

/** The longest key that matters (`previous_address`) fits; longer ones are kept as "none of those". */
const KEY_LIMIT = 32;
/** The longest action that matters (`create`, `delete`, `update`) fits. */
const ACTION_LIMIT = 16;

/** The role of a value from its container's role and, in an object, its key. */
function roleOf(parent: Frame | undefined): Role {
  if (!parent) return 'root';
  switch (parent.role) {
    case 'root':
      return parent.key === 'format_version' ? 'format_version' : parent.key === 'resource_changes' ? 'changes' : 'other';
    case 'changes':
      return 'entry';
    case 'entry':
      return parent.key === 'address' || parent.key === 'previous_address' || parent.key === 'change' ? parent.key : 'other';
    case 'change':
      return parent.key === 'actions' ? 'actions' : parent.key === 'importing' ? 'importing' : 'other';
    case 'actions':
      return 'action';
    default:
      return 'other';
  }
}

const NOT_JSON = 'the plan JSON is not valid JSON (upload the output of `terraform show -json <planfile>`)';

export class PlanJsonScanner {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  /** stream-json's tokenizer: text in, tokens out; `none` flushes it at the end (a flushable of stream-chain). */
  private readonly parser = jsonParser({ packValues: false, streamValues: true }) as (input: string | typeof none) => unknown;
  private readonly stack: Frame[] = [];
  private problem: PlanJsonProblem | undefined;
  private values = 0;
  private inKey = false;
  private keyText = '';
  /** The string being read, when it matters: an address (digested) or an action (kept, short). */
  private stringRole: Role = 'other';
  private stringText = '';
  private stringHash: Hash | undefined;
  private rootIsObject = false;
  private formatVersionIsString = false;
  private summary: PlanSummary = { ...EMPTY_PLAN_SUMMARY };
  private moved = false;
  /** The resource_changes entry being read. */
  private entry: { address: string | undefined; previous: string | undefined; change: { actions: string[]; importing: boolean } | undefined } | undefined;

  constructor(private readonly bounds: PlanJsonBounds) {}

  /** True once a problem was found: nothing more needs to be read. */
  get done(): boolean {
    return this.problem !== undefined;
  }

  write(bytes: Uint8Array): void {
    if (this.problem) return;
    let text: string;
    try {
      text = this.decoder.decode(bytes, { stream: true });
    } catch {
      this.problem = { kind: 'invalid', detail: 'the plan JSON is not valid UTF-8' };
      return;
    }
    this.feed(text);
  }

  /** The outcome, once every byte was written. */
  end(): PlanJsonCheck {
    if (!this.problem) {
      try {
        this.feed(this.decoder.decode());
      } catch {
        this.problem = { kind: 'invalid', detail: 'the plan JSON is not valid UTF-8' };
      }
    }
    if (!this.problem) this.feed(none);
    if (!this.problem && !this.rootIsObject) this.problem = { kind: 'invalid', detail: 'the plan JSON must be a JSON object' };
    if (!this.problem && !this.formatVersionIsString) {
      this.problem = { kind: 'invalid', detail: 'the plan JSON has no string format_version: is it the output of `terraform show -json <planfile>`?' };
    }
    if (this.problem) return { ok: false, problem: this.problem };
    return { ok: true, summary: finishSummary(this.summary, this.moved) };
  }

  private feed(input: string | typeof none): void {
    if (this.problem || input === '') return;
    let output: unknown;
    try {
      output = this.parser(input);
    } catch {
      this.problem = { kind: 'invalid', detail: NOT_JSON };
      return;
    }
    if (output === none) return;
    const tokens = (isMany(output) ? getManyValues(output) : [output]) as Token[];
    for (const token of tokens) {
      this.token(token);
      if (this.problem) return;
    }
  }

  private token(token: Token): void {
    switch (token.name) {
      case 'startObject':
      case 'startArray':
        this.open(token.name === 'startObject');
        return;
      case 'endObject':
      case 'endArray':
        this.close();
        return;
      case 'startKey':
        this.inKey = true;
        this.keyText = '';
        return;
      case 'endKey':
        this.inKey = false;
        this.stack[this.stack.length - 1]!.key = this.keyText.length > KEY_LIMIT ? undefined : this.keyText;
        return;
      case 'stringChunk':
        this.chunk(token.value as string);
        return;
      case 'startString':
        this.scalar('string');
        return;
      case 'endString':
        this.endString();
        return;
      case 'startNumber':
        this.scalar('number');
        return;
      case 'nullValue':
        this.scalar('null');
        return;
      case 'trueValue':
      case 'falseValue':
        this.scalar('boolean');
        return;
      default:
        // numberChunk, endNumber: a number is counted at its start and matters to nothing here.
        return;
    }
  }

  /** Counts a value and answers its role. */
  private begin(): Role | undefined {
    if (++this.values > this.bounds.maxValues) {
      this.problem = { kind: 'too-many-values', limit: this.bounds.maxValues };
      return undefined;
    }
    return roleOf(this.stack[this.stack.length - 1]);
  }

  private open(isObject: boolean): void {
    const role = this.begin();
    if (role === undefined) return;
    if (this.stack.length + 1 > this.bounds.maxDepth) {
      this.problem = { kind: 'too-deep', limit: this.bounds.maxDepth };
      return;
    }
    let kept: Role = 'other';
    if (role === 'root') {
      this.rootIsObject = isObject;
      kept = 'root';
    } else if (role === 'format_version') {
      this.formatVersionIsString = false;
    } else if (role === 'changes') {
      // A later resource_changes replaces an earlier one (JSON.parse keeps the last duplicate key).
      this.summary = { ...EMPTY_PLAN_SUMMARY };
      this.moved = false;
      if (!isObject) kept = 'changes';
    } else if (role === 'entry') {
      if (isObject) {
        this.entry = { address: undefined, previous: undefined, change: undefined };
        kept = 'entry';
      }
    } else if (role === 'address' || role === 'previous_address') {
      this.setAddress(role, undefined);
    } else if (role === 'change') {
      this.entry!.change = isObject ? { actions: [], importing: false } : undefined;
      if (isObject) kept = 'change';
    } else if (role === 'actions') {
      this.entry!.change!.actions = [];
      if (!isObject) kept = 'actions';
    } else if (role === 'importing') {
      this.entry!.change!.importing = true;
    }
    this.stack.push({ role: kept, key: undefined });
  }

  private close(): void {
    const frame = this.stack.pop();
    if (frame?.role !== 'entry' || !this.entry) return;
    const { address, previous, change } = this.entry;
    this.entry = undefined;
    if (!change) return;
    addResourceChange(this.summary, change);
    if (previous !== undefined && previous !== address) this.moved = true;
  }

  private scalar(kind: 'string' | 'number' | 'null' | 'boolean'): void {
    const role = this.begin();
    if (role === undefined) return;
    this.stringRole = 'other';
    if (role === 'root') {
      this.rootIsObject = false;
    } else if (role === 'format_version') {
      this.formatVersionIsString = kind === 'string';
    } else if (role === 'changes') {
      this.summary = { ...EMPTY_PLAN_SUMMARY };
      this.moved = false;
    } else if (role === 'address' || role === 'previous_address') {
      this.setAddress(role, undefined);
      if (kind === 'string') {
        this.stringRole = role;
        this.stringHash = createHash('sha256');
      }
    } else if (role === 'change') {
      this.entry!.change = undefined;
    } else if (role === 'actions') {
      this.entry!.change!.actions = [];
    } else if (role === 'action' && kind === 'string') {
      this.stringRole = 'action';
      this.stringText = '';
    } else if (role === 'importing') {
      this.entry!.change!.importing = kind !== 'null';
    }
  }

  private chunk(text: string): void {
    if (this.inKey) {
      if (this.keyText.length <= KEY_LIMIT) this.keyText += text.slice(0, KEY_LIMIT + 1);
    } else if (this.stringRole === 'action') {
      if (this.stringText.length <= ACTION_LIMIT) this.stringText += text.slice(0, ACTION_LIMIT + 1);
    } else if (this.stringHash) {
      this.stringHash.update(text, 'utf16le'); // every UTF-16 unit as it is, lone surrogates too
    }
  }

  private endString(): void {
    if (this.stringRole === 'action') {
      if (this.stringText.length <= ACTION_LIMIT) this.entry!.change!.actions.push(this.stringText);
    } else if (this.stringHash && (this.stringRole === 'address' || this.stringRole === 'previous_address')) {
      this.setAddress(this.stringRole, this.stringHash.digest('base64'));
    }
    this.stringRole = 'other';
    this.stringHash = undefined;
  }

  private setAddress(role: 'address' | 'previous_address', digest: string | undefined): void {
    if (role === 'address') this.entry!.address = digest;
    else this.entry!.previous = digest;
  }
}

/** Checks a whole plan JSON at once (tests, and small documents made in-process). */
export function checkPlanJsonBytes(body: Uint8Array, bounds: PlanJsonBounds): PlanJsonCheck {
  const scanner = new PlanJsonScanner(bounds);
  scanner.write(body);
  return scanner.end();
}
