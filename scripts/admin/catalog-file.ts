import fs from 'node:fs';
import type { FieldErrors } from '../../src/platform/errors.ts';
import { MAX_TEXT_CHARACTERS } from '../../src/modules/catalog/tools.ts';

/**
 * Reads `{"products": [ ... ]}` a product at a time, so an import's memory does not grow with its file.
 *
 * A byte-level JSON tokenizer for this one shape: the whole file is checked as JSON (a file that is not
 * JSON, or not of this shape, is refused before anything is written), and each entry of the array is
 * built as JSON.parse would build it, with two bounds applied while reading, before any per-character
 * work: a text longer than MAX_TEXT_BYTES is not decoded (its path gets an error), and a product longer
 * than MAX_PRODUCT_BYTES is not built at all.
 */

/**
 * The longest text the catalogue accepts with every character written at its longest (an astral character as
 * two \u escapes, 12 bytes), and room for the quotes: anything longer cannot be valid, whatever its spelling.
 */
export const MAX_TEXT_BYTES = MAX_TEXT_CHARACTERS * 12 + 2;
/** Room for ~250,000 customisations of ~60 bytes each. */
export const MAX_PRODUCT_BYTES = 16 * 1024 * 1024;
// Beyond this a number cannot be a valid order, position or price; it is still checked as JSON.
const MAX_NUMBER_BYTES = 1000;

/** The file is not JSON, or not `{"products": [...]}`: the message says where and why. */
export class CatalogFileError extends Error {
  override name = 'CatalogFileError';
}

export interface CatalogEntry {
  index: number;
  /** Its length in the file. */
  bytes: number;
  /** As JSON.parse would give it; undefined when the entry was too large to build (see errors). */
  value: unknown;
  /** Size refusals found while reading, by path (`products.3.name`). */
  errors: FieldErrors;
}

export const SHAPE_MESSAGE = 'must hold a JSON object {"products": [...]}';

interface Frame {
  array: boolean;
  /** The container being built; undefined when this part of the file is only checked. */
  value: Record<string, unknown> | unknown[] | undefined;
  /** Object: the key of the member being read (undefined: not kept). Array: the index of the next item. */
  key: string | undefined;
  index: number;
  role: 'root' | 'products' | 'entry' | 'skip';
}

const enum Mode {
  Value,
  ValueOrClose,
  KeyOrClose,
  Key,
  Colon,
  CommaOrClose,
  End,
  String,
  Number,
  Literal,
}

// Number grammar as states: - int0 int frac. frac e esign exp
const enum Num {
  Start,
  Minus,
  Zero,
  Int,
  Dot,
  Frac,
  E,
  ESign,
  Exp,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LITERALS: Record<number, [string, unknown]> = {
  0x74: ['true', true],
  0x66: ['false', false],
  0x6e: ['null', null],
};
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const describeByte = (c: number) =>
  c >= 0x21 && c <= 0x7e ? `"${String.fromCharCode(c)}"` : `byte 0x${c.toString(16).padStart(2, '0')}`;

function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  // As JSON.parse does: "__proto__" is an own property, never the prototype.
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

export class ProductsReader {
  private stack: Frame[] = [];
  private mode = Mode.Value;
  /** Offset in the file of the byte being read. */
  private offset = 0;
  private seenProducts = false;
  private count = 0;

  // The string being read.
  private isKey = false;
  private keep = false;
  /** The string belongs to an entry being built: too long, it is an error there. */
  private wanted = false;
  private pieces: Buffer[] = [];
  private stringBytes = 0;
  private escaped = false;
  /** 0 none, 1 after a backslash, 2–5 hex digits of \u left. */
  private escape = 0;
  // The number or literal being read.
  private numberText = '';
  private numberBytes = 0;
  private num = Num.Start;
  private literal = '';
  private literalValue: unknown = null;
  private literalAt = 0;
  // The entry being read.
  private entry: { index: number; start: number; tooLarge: boolean; errors: FieldErrors } | undefined;

  constructor(
    private readonly build: boolean,
    private readonly onEntry: (entry: CatalogEntry) => void,
  ) {}

  get products(): number {
    return this.count;
  }

  private fail(message: string): never {
    throw new CatalogFileError(`${message} at byte ${this.offset}`);
  }

  private shape(): never {
    throw new CatalogFileError(SHAPE_MESSAGE);
  }

  push(chunk: Buffer): void {
    let i = 0;
    if (this.offset === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    const base = this.offset;
    const n = chunk.length;
    while (i < n) {
      this.offset = base + i;
      const c = chunk[i]!;
      switch (this.mode) {
        case Mode.String: {
          i = this.readString(chunk, i, base);
          continue;
        }
        case Mode.Number: {
          if (this.numberByte(c)) {
            i++;
            continue;
          }
          this.endNumber();
          continue; // c is read again as what follows the number
        }
        case Mode.Literal: {
          if (c !== this.literal.charCodeAt(this.literalAt)) this.fail(`Unexpected ${describeByte(c)}`);
          if (++this.literalAt === this.literal.length) {
            this.mode = Mode.CommaOrClose;
            this.attach(this.literalValue);
          }
          i++;
          continue;
        }
        default:
          break;
      }
      if (isSpace(c)) {
        i++;
        continue;
      }
      switch (this.mode) {
        case Mode.Value:
        case Mode.ValueOrClose:
          if (this.mode === Mode.ValueOrClose && c === 0x5d) this.close(true);
          else this.startValue(c);
          break;
        case Mode.KeyOrClose:
        case Mode.Key:
          if (c === QUOTE) this.startString(true);
          else if (this.mode === Mode.KeyOrClose && c === 0x7d) this.close(false);
          else this.fail(`Expected a property name, found ${describeByte(c)}`);
          break;
        case Mode.Colon:
          if (c !== 0x3a) this.fail(`Expected ":", found ${describeByte(c)}`);
          this.mode = Mode.Value;
          break;
        case Mode.CommaOrClose: {
          const top = this.stack.at(-1)!;
          if (c === 0x2c) this.mode = top.array ? Mode.Value : Mode.Key;
          else if (c === (top.array ? 0x5d : 0x7d)) this.close(top.array);
          else this.fail(`Expected "," or "${top.array ? ']' : '}'}", found ${describeByte(c)}`);
          break;
        }
        case Mode.End:
          this.fail(`Unexpected ${describeByte(c)} after the end of the JSON value`);
      }
      i++;
    }
    this.offset = base + n;
    if (this.mode === Mode.String) this.checkEntrySize();
  }

  end(): void {
    if (this.mode !== Mode.End) this.fail('Unexpected end of the file');
    if (!this.seenProducts) this.shape();
  }

  private startValue(c: number): void {
    const top = this.stack.at(-1);
    if (!top && c !== 0x7b) {
      // Something JSON-looking that is not an object is the wrong shape; anything else is not JSON.
      if (c === 0x5b || c === QUOTE || c === 0x2d || isDigit(c) || LITERALS[c]) this.shape();
      this.fail(`Unexpected ${describeByte(c)}`);
    }
    if (top?.role === 'root') {
      if (top.key === 'products') {
        if (this.seenProducts || c !== 0x5b) this.shape();
        this.seenProducts = true;
        this.push1(true, 'products');
        return;
      }
    } else if (top?.role === 'products') {
      this.entry = { index: top.index, start: this.offset, tooLarge: false, errors: {} };
    }
    if (c === 0x7b || c === 0x5b) {
      const role: Frame['role'] = !top ? 'root' : top.role === 'products' || top.role === 'entry' ? 'entry' : 'skip';
      this.push1(c === 0x5b, role);
    } else if (c === QUOTE) this.startString(false);
    else if (c === 0x2d || isDigit(c)) {
      this.mode = Mode.Number;
      this.num = Num.Start;
      this.numberText = '';
      this.numberBytes = 0;
      this.numberByte(c);
    } else if (LITERALS[c]) {
      [this.literal, this.literalValue] = LITERALS[c]!;
      this.literalAt = 1;
      this.mode = Mode.Literal;
    } else this.fail(`Unexpected ${describeByte(c)}`);
  }

  /** Whether the container on top is being built (inside an entry that is not too large). */
  private building(): boolean {
    const top = this.stack.at(-1);
    if (!this.build || !top || !this.entry || this.entry.tooLarge) return false;
    return top.role === 'products' || (top.role === 'entry' && top.value !== undefined);
  }

  /** Whether the value about to be read is kept: inside an entry being built, with a place to go. */
  private keeping(): boolean {
    const top = this.stack.at(-1)!;
    return this.building() && (top.role === 'products' || top.array || top.key !== undefined);
  }

  private push1(array: boolean, role: Frame['role']): void {
    const value = role === 'entry' && this.keeping() ? (array ? [] : {}) : undefined;
    this.stack.push({ array, value, key: undefined, index: 0, role });
    this.mode = array ? Mode.ValueOrClose : Mode.KeyOrClose;
  }

  private close(array: boolean): void {
    const frame = this.stack.pop()!;
    if (frame.array !== array) this.fail(`Unexpected "${array ? ']' : '}'}"`);
    if (this.stack.length === 0) {
      this.mode = Mode.End;
      return;
    }
    this.mode = Mode.CommaOrClose;
    this.attach(frame.value);
  }

  /** A value is complete: it goes into its container, and an entry that ends here is handed on. */
  private attach(value: unknown): void {
    const top = this.stack.at(-1)!;
    if (top.role === 'products') {
      const entry = this.entry!;
      const bytes = this.offset + 1 - entry.start;
      this.count++;
      if (this.build) {
        if (entry.tooLarge) {
          entry.errors[`products.${entry.index}`] = [
            `The product must not be greater than ${MAX_PRODUCT_BYTES / 1024 / 1024} MiB in an import file (it has ${bytes} bytes).`,
          ];
        }
        this.onEntry({ index: entry.index, bytes, value: entry.tooLarge ? undefined : value, errors: entry.errors });
      }
      this.entry = undefined;
      top.index++;
      return;
    }
    if (top.value !== undefined) {
      if (top.array) (top.value as unknown[]).push(value);
      else if (top.key !== undefined) setMember(top.value as Record<string, unknown>, top.key, value);
    }
    if (top.array) top.index++;
    this.checkEntrySize();
  }

  /** Stops building an entry that has grown past the bound; the rest of it is only checked. */
  private checkEntrySize(): void {
    const entry = this.entry;
    if (!entry || entry.tooLarge || !this.build || this.offset - entry.start <= MAX_PRODUCT_BYTES) return;
    entry.tooLarge = true;
    for (const frame of this.stack) if (frame.role === 'entry') frame.value = undefined;
    this.keep = false;
    this.pieces = [];
  }

  /** The path of the value being read inside its entry: `products.3.steps.0.name`. */
  private path(ofContainer = false): string {
    const parts: (string | number)[] = ['products', this.entry!.index];
    for (const frame of this.stack) {
      if (frame.role !== 'entry') continue;
      parts.push(frame.array ? frame.index : (frame.key ?? '?'));
    }
    if (ofContainer) parts.pop();
    return parts.join('.');
  }

  private startString(isKey: boolean): void {
    this.mode = Mode.String;
    this.isKey = isKey;
    const top = this.stack.at(-1)!;
    // Keys are kept where their object is built, and at the top (to find "products").
    this.wanted = isKey ? this.building() : this.keeping();
    this.keep = this.wanted || (isKey && top.role === 'root');
    this.pieces = [];
    this.stringBytes = 0;
    this.escaped = false;
    this.escape = 0;
  }

  /** Reads string bytes from `i`; returns where it stopped (past the closing quote, or the chunk's end). */
  private readString(chunk: Buffer, i: number, base: number): number {
    const n = chunk.length;
    const start = i;
    for (; i < n; i++) {
      const c = chunk[i]!;
      if (this.escape === 0) {
        if (c === QUOTE) break;
        if (c === BACKSLASH) {
          this.escape = 1;
          this.escaped = true;
        } else if (c < 0x20) {
          this.offset = base + i;
          this.fail(`Unescaped control character ${describeByte(c)} in a string`);
        }
      } else if (this.escape === 1) {
        if (c === 0x75) this.escape = 5;
        else if (
          c === QUOTE ||
          c === BACKSLASH ||
          c === 0x2f ||
          c === 0x62 ||
          c === 0x66 ||
          c === 0x6e ||
          c === 0x72 ||
          c === 0x74
        )
          this.escape = 0;
        else {
          this.offset = base + i;
          this.fail(`Bad escape ${describeByte(c)} in a string`);
        }
      } else {
        if (!isHex(c)) {
          this.offset = base + i;
          this.fail(`Bad \\u escape in a string`);
        }
        this.escape = this.escape === 2 ? 0 : this.escape - 1;
      }
    }
    this.stringBytes += i - start;
    if (this.keep) {
      if (this.stringBytes > MAX_TEXT_BYTES) {
        this.keep = false;
        this.pieces = [];
      } else if (i > start) this.pieces.push(chunk.subarray(start, i));
    }
    if (i === n) return i;
    this.offset = base + i;
    this.endString();
    return i + 1;
  }

  private endString(): void {
    const kept = this.keep && this.stringBytes <= MAX_TEXT_BYTES;
    let text: string | undefined;
    if (kept) {
      const raw = Buffer.concat(this.pieces).toString('utf8');
      // Escapes were checked above, so JSON.parse decodes them exactly (lone surrogates included).
      text = this.escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
    }
    this.pieces = [];
    const top = this.stack.at(-1)!;
    // Said even when the entry grew too large during this text: it is why.
    const tooLong = this.stringBytes > MAX_TEXT_BYTES && this.wanted;
    if (this.isKey) {
      this.mode = Mode.Colon;
      top.key = text;
      if (tooLong)
        (this.entry!.errors[this.path(true)] ??= []).push(
          `A field name must not be greater than ${MAX_TEXT_BYTES} bytes.`,
        );
      return;
    }
    this.mode = Mode.CommaOrClose;
    if (tooLong) {
      const field = top.array || top.key === undefined ? 'value' : top.key;
      (this.entry!.errors[this.path()] ??= []).push(
        `The ${field} must not be greater than ${MAX_TEXT_BYTES} bytes in an import file (it has ${this.stringBytes}).`,
      );
      // Stands in for the text so that the rest of the entry is still checked; the error above decides.
      text = '';
    }
    this.attach(text);
  }

  private numberByte(c: number): boolean {
    let next: Num | undefined;
    switch (this.num) {
      case Num.Start:
        next = c === 0x2d ? Num.Minus : c === 0x30 ? Num.Zero : isDigit(c) ? Num.Int : undefined;
        break;
      case Num.Minus:
        next = c === 0x30 ? Num.Zero : isDigit(c) ? Num.Int : undefined;
        break;
      case Num.Zero:
      case Num.Int:
        next =
          c === 0x2e
            ? Num.Dot
            : c === 0x65 || c === 0x45
              ? Num.E
              : this.num === Num.Int && isDigit(c)
                ? Num.Int
                : undefined;
        break;
      case Num.Dot:
        next = isDigit(c) ? Num.Frac : undefined;
        break;
      case Num.Frac:
        next = isDigit(c) ? Num.Frac : c === 0x65 || c === 0x45 ? Num.E : undefined;
        break;
      case Num.E:
        next = c === 0x2b || c === 0x2d ? Num.ESign : isDigit(c) ? Num.Exp : undefined;
        break;
      case Num.ESign:
      case Num.Exp:
        next = isDigit(c) ? Num.Exp : undefined;
        break;
    }
    if (next === undefined) return false;
    this.num = next;
    if (++this.numberBytes <= MAX_NUMBER_BYTES) this.numberText += String.fromCharCode(c);
    return true;
  }

  private endNumber(): void {
    if (this.num !== Num.Zero && this.num !== Num.Int && this.num !== Num.Frac && this.num !== Num.Exp)
      this.fail('Incomplete number');
    this.offset--; // it ended at the byte before this one
    this.mode = Mode.CommaOrClose;
    let value: unknown = Number(this.numberText);
    if (this.numberBytes > MAX_NUMBER_BYTES) {
      if (this.keeping())
        (this.entry!.errors[this.path()] ??= []).push(`The number must not be longer than ${MAX_NUMBER_BYTES} digits.`);
      value = 0;
    }
    this.attach(value);
  }
}

/** Checks the whole file and counts its products; builds nothing. */
export async function scanCatalogFile(file: string): Promise<number> {
  const reader = new ProductsReader(false, () => {});
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) reader.push(chunk as Buffer);
  reader.end();
  return reader.products;
}

/** The file's products in order, each built only when it is next asked for (a chunk of the file at a time). */
export async function* readCatalogEntries(file: string): AsyncGenerator<CatalogEntry> {
  const ready: CatalogEntry[] = [];
  const reader = new ProductsReader(true, (entry) => ready.push(entry));
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 256 * 1024 })) {
    reader.push(chunk as Buffer);
    for (let i = 0; i < ready.length; i++) yield ready[i]!;
    ready.length = 0;
  }
  reader.end();
  yield* ready;
}
