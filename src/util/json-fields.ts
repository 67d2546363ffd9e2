// Untyped JSON (a file, a server's answer) read once at the edge into typed values: a reader over
// one object's fields, so the modules that parse such JSON narrow each field where they read it
// instead of indexing untyped records and casting.

/** A JSON object (not null, not an array). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The fields of one JSON object, each read as unknown or narrowed to one JSON type (undefined when it is another). */
export class JsonFields {
  private readonly fields: Map<string, unknown>;

  private constructor(obj: object) {
    this.fields = new Map(Object.entries(obj));
  }

  /** The fields of `v`, or null when `v` is not a JSON object. */
  static of(v: unknown): JsonFields | null {
    return isJsonObject(v) ? new JsonFields(v) : null;
  }

  /** The fields of `v`, or none when `v` is not a JSON object. */
  static orEmpty(v: unknown): JsonFields {
    return new JsonFields(isJsonObject(v) ? v : {});
  }

  has(key: string): boolean {
    return this.fields.has(key);
  }

  keys(): string[] {
    return [...this.fields.keys()];
  }

  get(key: string): unknown {
    return this.fields.get(key);
  }

  str(key: string): string | undefined {
    const v = this.fields.get(key);
    return typeof v === 'string' ? v : undefined;
  }

  num(key: string): number | undefined {
    const v = this.fields.get(key);
    return typeof v === 'number' ? v : undefined;
  }

  bool(key: string): boolean | undefined {
    const v = this.fields.get(key);
    return typeof v === 'boolean' ? v : undefined;
  }

  arr(key: string): unknown[] | undefined {
    const v = this.fields.get(key);
    return Array.isArray(v) ? v : undefined;
  }

  /** The field as an object's fields, or null when it is not a JSON object. */
  obj(key: string): JsonFields | null {
    return JsonFields.of(this.fields.get(key));
  }
}

/** A JSON value, as a parsed file holds it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Whether `v` is a JSON value (what a parsed file holds): narrows a parsed file's field without a cast. */
export function isJsonValue(v: unknown): v is JsonValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isJsonValue);
  return isJsonObject(v) && Object.values(v).every(isJsonValue);
}
