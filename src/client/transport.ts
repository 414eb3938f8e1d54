// The seam between the typed client and where requests go: in-process (the embedded engine) or
// over HTTP(S) to the service or `tpa local serve`. A transport only moves requests; it does not
// judge statuses.

export interface TransportRequest {
  method: string;
  /** Path as served, with the query string: /tpa-api/v1/claims/sub_x/response/?include_raw_response=true */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * A list's rows wanted as their JSON text (domain/json-row.ts), to be printed as they are: the
   * in-process transport hands them so where the engine has them; over HTTP rows are parsed values.
   */
  rowsAsText?: boolean;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
}

export interface Transport {
  readonly name: string;
  send(request: TransportRequest): Promise<TransportResponse>;
  close?(): void;
  /**
   * Runs `fn` (GET requests only) against one consistent state of the data, when the transport can
   * promise that (the in-process engine); absent over HTTP, where offset pages cannot.
   */
  snapshot?<T>(fn: () => Promise<T>): Promise<T>;
}
