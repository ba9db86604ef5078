import { ValidationFailed, type FieldErrors } from '../../../platform/errors.ts';
import { parseRowId } from '../../../platform/ids.ts';
import { forbiddenTextMessage, hasForbiddenText, isInvisibleText } from '../../../platform/text.ts';
import type { Maybe, PriceMode } from './inputs.ts';

// One field's rules, with Laravel's messages, collected by argument path
// (`input.steps.0.components.1.customisations.0.price`) before anything touches the database.

const NAME_MAX = 200;
const SKU_MAX = 64;
const SKU_PATTERN = /^[A-Za-z0-9._-]+$/;
const TYPE_MAX = 50;
const SLOT_MAX = 1_000_000;
const PRICE_MAX = 9_999_999_999.99;
const MESSAGE_MAX = 1000;
/** The longest text any field of the catalogue accepts, in characters (an import file's reader bounds texts by it). */
export const MAX_TEXT_CHARACTERS = Math.max(NAME_MAX, SKU_MAX, TYPE_MAX, MESSAGE_MAX);
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const PRICE_MODES: readonly string[] = ['ADD', 'REPLACE_BASE'];
/** An input of thousands of bad rows gets the first ones back, not a response as large as itself. */
const MAX_REPORTED_PATHS = 100;

export class Checker {
  readonly errors: FieldErrors = {};
  private paths = 0;

  fail(path: string, message: string): void {
    if (!this.errors[path] && this.paths++ >= MAX_REPORTED_PATHS) return;
    (this.errors[path] ??= []).push(message);
  }

  text(path: string, attribute: string, value: string, max: number): string {
    const trimmed = value.trim();
    // Only invisible characters (zero-width spaces…) is as empty; text that cannot round-trip is refused here too (import).
    if (isInvisibleText(trimmed)) this.fail(path, `The ${attribute} field is required.`);
    else if (hasForbiddenText(trimmed)) this.fail(path, forbiddenTextMessage(attribute));
    else if ([...trimmed].length > max) this.fail(path, `The ${attribute} must not be greater than ${max} characters.`);
    return trimmed;
  }

  name(path: string, value: string): string {
    return this.text(path, 'name', value, NAME_MAX);
  }

  sku(path: string, value: string): string {
    const sku = this.text(path, 'sku', value, SKU_MAX);
    if (sku !== '' && [...sku].length <= SKU_MAX && !SKU_PATTERN.test(sku)) {
      this.fail(path, 'The sku may only contain letters, numbers, dots, underscores and dashes.');
    }
    return sku;
  }

  type(path: string, value: string): string {
    return this.text(path, 'type', value, TYPE_MAX);
  }

  slot(path: string, attribute: 'order' | 'position', value: number): number {
    if (!Number.isInteger(value) || value < 0 || value > SLOT_MAX) {
      this.fail(path, `The ${attribute} must be between 0 and ${SLOT_MAX}.`);
    }
    return value;
  }

  price(path: string, value: number, attribute = 'price'): string {
    if (!Number.isFinite(value) || value < 0 || value > PRICE_MAX) {
      this.fail(path, `The ${attribute} must be between 0 and ${PRICE_MAX.toFixed(2)}.`);
      return '0.00';
    }
    const text = value.toFixed(2);
    if (Number(text) !== value) this.fail(path, `The ${attribute} must have at most 2 decimals.`);
    return text;
  }

  currency(path: string, value: string): string {
    const code = value.trim();
    if (!CURRENCIES.has(code)) this.fail(path, 'The currency must be an ISO 4217 currency code, such as EUR or USD.');
    return code;
  }

  priceMode(path: string, value: string): PriceMode {
    if (!PRICE_MODES.includes(value)) this.fail(path, 'The selected price mode is invalid.');
    return value as PriceMode;
  }

  /** A selection bound: an integer from 0 to SLOT_MAX. */
  bound(path: string, attribute: string, value: number): number {
    if (!Number.isInteger(value) || value < 0 || value > SLOT_MAX) {
      this.fail(path, `The ${attribute} must be between 0 and ${SLOT_MAX}.`);
    }
    return value;
  }

  /** 0 ≤ min ≤ max (a null max is no limit); the error goes to the min's path. */
  selections(path: string, min: number, max: number | null): void {
    if (max !== null && Number.isInteger(min) && Number.isInteger(max) && min > max) {
      this.fail(path, 'The min selections must not be greater than the max selections.');
    }
  }

  message(path: string, value: Maybe<string>): string | null {
    if (value === null || value === undefined) return null;
    return this.text(path, 'message', value, MESSAGE_MAX);
  }

  id(path: string, value: Maybe<string>): string | undefined {
    if (value === null || value === undefined) return undefined;
    const id = parseRowId(value);
    if (id === null) this.fail(path, 'The selected id is invalid.');
    return id ?? undefined;
  }

  /** False (and an error at the list's path) when the list is too long to look into. */
  count(path: string, attribute: string, list: readonly unknown[], max: number): boolean {
    if (list.length <= max) return true;
    this.fail(path, `The ${attribute} must not have more than ${max} items.`);
    return false;
  }

  distinct<T>(
    items: readonly T[],
    key: (item: T) => unknown,
    path: (index: number) => string,
    attribute: string,
  ): void {
    const seen = new Set<unknown>();
    items.forEach((item, i) => {
      const k = key(item);
      if (k === undefined) return;
      if (seen.has(k)) this.fail(path(i), `The ${attribute} field has a duplicate value.`);
      seen.add(k);
    });
  }

  done(): void {
    if (Object.keys(this.errors).length > 0) throw new ValidationFailed(this.errors);
  }
}

/** The sku as the service stores it (trimmed), or undefined when the service would refuse it. */
export function validSku(value: string): string | undefined {
  const c = new Checker();
  const sku = c.sku('sku', value);
  return Object.keys(c.errors).length === 0 ? sku : undefined;
}

/** Run one check on its own and throw its errors, for inputs of a single kind. */
export function check<T>(run: (c: Checker) => T): T {
  const c = new Checker();
  const result = run(c);
  c.done();
  return result;
}
