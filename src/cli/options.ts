// Option value helpers shared by command handlers.

/** Values of a repeatable list option, also accepting commas: --cpt 45378 43235 or --cpt 45378,43235. */
export function listValue(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter((v) => v !== '');
}
