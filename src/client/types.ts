// Response bodies of the contract (docs/api.md), as the client sees them (amounts are JSON numbers in USD).
import type { JsonRow } from '../domain/json-row.js';

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
  /** The date whose rate this is (the engine's; a service may leave it out). */
  service_date?: string;
  rate_effective_from?: string;
  rate_effective_to?: string | null;
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

export interface FundingApproval {
  encounter_id: string;
  amount: number;
  authorization_code: string;
  notes?: string;
}

export interface FundingApproved {
  status: 'APPROVED';
  processor_transfer_id: string;
  estimated_arrival: string;
  settlement_record_id: string;
}

export interface Payout {
  sequence: number;
  provider_npi: string;
  provider_name: string;
  provider_role: string;
  processor_payout_id: string;
  amount: number;
  payout_status: string;
  payout_date: string;
  expected_arrival: string;
  processor_fee: number;
  net_to_provider: number;
}

/** One transfer; the settlement record is the latest, earlier ones (FAILED or REFUNDED) are kept. */
export interface SettlementTransfer {
  settlement_id: string;
  encounter_id: string;
  processor_transfer_id: string;
  status: string;
  total_amount: number;
  payouts: Payout[];
  reconciliation_status: string;
  aeob_match: { aeob_reference: string | null; aeob_amount: number | null; settlement_amount: number; variance: number; match_status: string } | null;
  initiated_at: string;
  completed_at: string | null;
  /** tpa's engine adds it: when the transfer failed. */
  failed_at?: string | null;
  /** `amount` is what came back (net to the providers); tpa's engine adds the gross and the fees kept. */
  refund_details: { refund_id: string; amount: number; gross_amount?: number; fees_not_returned?: number; reason: string; refunded_at: string } | null;
  disputes: unknown[];
}

export interface SettlementRecord extends SettlementTransfer {
  /** tpa's engine adds it: the encounter's earlier transfers, which failed or were refunded, oldest first. */
  previous_transfers?: SettlementTransfer[];
}

export interface SettlementPending {
  encounter_id: string;
  status: 'PENDING';
  message: string;
  adjudication_complete: boolean;
  funding_approved: boolean;
}

export interface LedgerFilters {
  start_date?: string;
  end_date?: string;
  provider_npi?: string;
  status?: string;
  limit?: number;
  offset?: number;
}

export interface LedgerItem {
  id: string;
  encounter_id: string;
  encounter_number: string;
  ssp_code: string;
  ssp_name: string;
  provider: { npi: string; name: string; role: string | null };
  payer: { name: string; id: string };
  service_date: string;
  status: string;
  status_progression: { status: string; timestamp: string }[];
  financial_summary: Record<string, number | null>;
  /** tpa's: on a pended entry sent again, the encounter of the claim that sent it. */
  superseded_by?: string;
}

export interface LedgerPage {
  count: number;
  next: string | null;
  previous: string | null;
  results: LedgerItem[];
}

/** A ledger page whose rows may come as their JSON text (client.ts ledgerRows). */
export interface LedgerRows {
  count: number;
  next: string | null;
  previous: string | null;
  results: (LedgerItem | JsonRow)[];
}

export interface LedgerServiceLine {
  sequence: number;
  /** The procedure code (CPT, or a HCPCS Level II code tpa does not price); null on an institutional revenue-code-only line. */
  cpt_code: string | null;
  cpt_description: string;
  /** As sent: units (at most three decimals), or minutes when `unit_of_measure` is MJ. */
  quantity: number;
  /** tpa's: MJ when `quantity` is minutes (absent: units, UN). */
  unit_of_measure?: 'UN' | 'MJ';
  /** tpa's: the line's revenue code (an 837I's SV201), when it has one. */
  revenue_code?: string;
  /** tpa's: remark codes (RARC) of a line denied because tpa does not price its code (N130, M51). */
  remark_codes?: string[];
  /** tpa's engine adds these: the line's procedure modifiers, and the sender's line control number (an 837's REF*6R; null when none). */
  modifiers?: string[];
  line_control_number?: string | null;
  submitted_charge: number;
  allowed_amount: number | null;
  deductible_applied: number | null;
  copay_applied: number | null;
  coinsurance_applied: number | null;
  patient_responsibility: number | null;
  benefit_amount: number | null;
  status: string;
  /** tpa's engine adds these; another service may not. `denial_code`: why the line is not paid. */
  denial_code?: string | null;
  /** YYYY-MM-DD: the line's own date of service (a claim's lines may be on several days). */
  service_date?: string;
  provider_npi?: string;
  provider_name?: string;
  provider_role?: string;
  /** tpa's: the anesthesia paid on another claim and taken off the line's price (absent when none). */
  anesthesia_deducted?: number;
}

/** tpa's engine adds these to the payer of a ledger detail (docs/api.md): null when the payer has no profile. */
export interface PayerProfileFields {
  tax_id?: string | null;
  address?: { line1: string; line2?: string | null; city: string; state: string; postal_code: string } | null;
  technical_contact?: { name?: string | null; phone?: string | null; email?: string | null; url?: string | null } | null;
}

export interface LedgerDetail {
  encounter: {
    id: string;
    encounter_number: string;
    status: string;
    service_date: string;
    submission_date: string;
    patient: {
      member_id: string;
      name: string | null;
      dob: string | null /** A dependent's subscriber (their member id); absent for a subscriber or a member enrolled alone. */;
      subscriber_id?: string;
    };
    provider: { npi: string; name: string; role: string | null; facility_npi: string | null; facility_name: string | null };
    payer: { name: string; id: string } & PayerProfileFields;
    /** tpa's engine adds it: the claim's own id from its sender (an 837's CLM01); null or absent when it had none. */
    patient_control_number?: string | null;
    /** tpa's: a corrected claim names the claim it replaced; the replaced claim (SUPERSEDED) its replacement. */
    replaces?: string;
    replaced_by?: string;
    /** tpa's: an institutional claim's facility type code (CLM05-1) and claim frequency code (CLM05-3), when sent. */
    facility_type_code?: string;
    claim_frequency_code?: string;
    /** tpa's engine adds it: true when the claim came from test data (an 837 of ISA15 T, a Claim tagged HTEST); absent otherwise. */
    test_data?: boolean;
    /** tpa's engine adds these: professional or institutional, and the claim's ICD-10 diagnoses in the order sent. */
    claim_type?: string;
    diagnosis_codes?: string[];
  };
  entries: {
    sequence: number;
    type: string;
    timestamp: string;
    reference: string | null;
    description: string;
    financial_impact: Record<string, number> | null;
  }[];
  // biome-ignore lint/suspicious/noExplicitAny: the summary's amounts are read by name in several screens; not yet typed
  financial_summary: Record<string, any>;
  service_lines: LedgerServiceLine[];
  reconciliation: {
    claim_match_status: string;
    aeob_reference: string | null;
    processor_trace_id: string | null;
    settlement_record_id: string | null;
    external_claim_id: string;
  };
}

export interface Ssp {
  id: string;
  code: string;
  name: string;
  level: string;
  medicare_rate: number;
  base_weight: number;
  primary_cpt_code: string;
  requires_anesthesia: boolean;
}

export interface CatalogQuery {
  search?: string;
  page?: number;
  page_size?: number;
  version?: string;
}

export interface CatalogPage {
  count: number;
  next: string | null;
  previous: string | null;
  results: Ssp[];
}

export interface ScheduleSettings {
  ssp_reference_type: string;
  scope_of_care: string;
  service_logic: string;
  elective_advance_hours: number;
  non_elective_fallback: string;
  non_elective_fallback_percent: number;
  default_rate_type: string;
  default_rate_value: number;
}

export interface ScheduleItem {
  id: string;
  ssp_id: string;
  ssp_code: string;
  ssp_name: string;
  rate_type: string;
  rate_value: number;
  is_bundle_eligible: boolean;
  bundle_type: string | null;
  notes: string;
  sort_order: number;
}

export interface RateSchedule extends ScheduleSettings {
  id: string;
  status: string;
  finalized_at: string | null;
  items: ScheduleItem[];
}

export interface ScheduleItemInput {
  ssp_id: string;
  rate_type: string;
  rate_value: number;
  is_bundle_eligible: boolean;
  bundle_type: string | null;
  notes: string;
}

export interface PreviewItem {
  ssp_code: string;
  ssp_name: string;
  rate_type: string;
  rate_value: number;
  calculated_allowed_amount: number;
  medicare_rate: number;
  bundle_type: string | null;
}

export interface Health {
  status: string;
  environment: string;
  key_id: string | null;
  scopes: string[];
  time: string;
  /** tpa's: the database that answers (docs/api-routes.md "GET /v1/health"); absent from a service that does not say. */
  database?: { id: string; created_at: string } | null;
}

export interface ApiKeyInfo {
  id: string;
  prefix: string;
  last4: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
}
