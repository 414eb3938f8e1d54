// Output formats (docs/design.md "Output"); a module of its own so that the program's declarations stay light.
export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
