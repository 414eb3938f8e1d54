// The OpenAPI document of the service, which `tpa local serve` answers at /openapi.yaml without
// credentials (docs/api.md "The OpenAPI document").
import { readFileSync } from 'node:fs';

export const OPENAPI_PATH = '/openapi.yaml';
export const OPENAPI_TYPE = 'application/yaml; charset=utf-8';

let document: string | null | undefined;

/**
 * The document's text, read once: an asset of the single executable (scripts/sea.mjs puts it inside),
 * dist/openapi.yaml beside the bundle (the build copies it there), or docs/openapi.yaml when tpa runs
 * from its source (the tests). null when none is there.
 */
export function openapiDocument(): string | null {
  if (document !== undefined) return document;
  document = null;
  const sea = process.getBuiltinModule('node:sea');
  if (sea?.isSea()) {
    document = sea.getAsset('openapi.yaml', 'utf8');
    return document;
  }
  for (const place of ['./openapi.yaml', '../../docs/openapi.yaml']) {
    try {
      document = readFileSync(new URL(place, import.meta.url), 'utf8');
      break;
    } catch {
      // Not here: the next place.
    }
  }
  return document;
}
