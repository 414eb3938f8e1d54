// Response bodies of SPEC.md, as the client sees them (amounts are JSON numbers in USD).

export interface BlindLookupResult {
  match_found: boolean;
  contract_id?: string;
  message: string;
}

export interface FullLookupResult {
  contract_id: string;
  contract_number: string;
  effective_date: string;
  termination_date: string | null;
  network_tier: string;
  rate_type: string;
  negotiated_rate: number | null;
  medicare_multiplier: number | null;
  bundle_type: string | null;
  anesthesia_included: boolean;
}

export interface ClaimAcknowledgment {
  submission_id: string;
  external_claim_id: string;
  status: string;
  message: string;
}

export interface AdjudicationSummary {
  service_date: string;
  total_charges: number;
  allowed_amount: number;
  deductible_applied: number;
  copay_applied: number;
  coinsurance_applied: number;
  patient_responsibility: number;
  benefit_amount: number;
  payer_responsibility: number;
}

export interface ClaimResponseBody {
  submission_id: string;
  external_claim_id?: string;
  status: string;
  disposition?: string;
  adjudication?: AdjudicationSummary;
  claim_response?: Record<string, unknown>;
  aeob_reference?: string;
  processor_trace_id?: string;
  completed_at?: string;
  denial_reason?: string;
  denial_code?: string;
  pend_reason?: string;
  estimated_completion?: string;
  message?: string;
}
