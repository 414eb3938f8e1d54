// The service's page sizes (docs/api.md): the engine serves them, and the client counts a listing
// begun at a page number from them.

/** The SSP catalog's page size when a request names none. */
export const CATALOG_DEFAULT_PAGE_SIZE = 20;
