// Contract lookup, blind and full (docs/api-routes.md "POST /v1/contract-lookup/blind/" and ".../full/").
import { contractRate } from '../../domain/contract-rates.js';
import type { FieldError } from '../../domain/errors.js';
import { centsToAmount } from '../../domain/money.js';
import { ADMIT_TYPES, cptProblem, groupIdProblem, isoDateProblem, npiProblem } from '../../domain/validation.js';
import { isoDate } from '../clock.js';
import type { EngineContext } from '../context.js';
import { HttpError, jsonBody, respond, type EngineRequest, type EngineResponse } from '../exchange.js';
import { activeContractsFor, contractById, isActiveOn, rateOn } from '../store/contracts.js';

export const CONTRACT_ID_FORM = /^ctr_[0-9a-f]{16}$/;

function check(errors: FieldError[], field: string, problem: string | undefined): void {
  if (problem) errors.push({ field, message: problem });
}

function fail(errors: FieldError[]): void {
  if (errors.length > 0) throw new HttpError(400, { errors });
}

export function blindLookup(ctx: EngineContext, req: EngineRequest): EngineResponse {
  const body = jsonBody(req);
  const errors: FieldError[] = [];
  check(errors, 'npi', npiProblem(body.npi));
  check(errors, 'group_id', groupIdProblem(body.group_id));
  const codes = body.cpt_codes;
  if (!Array.isArray(codes) || codes.length === 0) {
    errors.push({ field: 'cpt_codes', message: 'is required: a list of one or more CPT codes' });
  } else if (codes.length > 50) {
    errors.push({ field: 'cpt_codes', message: 'takes at most 50 codes' });
  } else {
    codes.forEach((code, i) => check(errors, `cpt_codes[${i}]`, cptProblem(code)));
  }
  // Active on the service date asked for, else today on the engine clock: the same date the full
  // lookup prices on, so a blind match is always followed by a full answer for that date.
  if (body.service_date !== undefined) check(errors, 'service_date', isoDateProblem(body.service_date));
  fail(errors);
  const cptCodes = [...new Set(codes as string[])];
  const date = (body.service_date as string | undefined) ?? isoDate(ctx.clock.now());
  const match = activeContractsFor(ctx.db, body.npi as string, date, cptCodes, body.group_id as string).find((c) => c.covered.length === cptCodes.length);
  if (!match) {
    return respond(404, {
      match_found: false,
      message: `No active contract for NPI ${String(body.npi)} in group ${String(body.group_id)} covers ${cptCodes.join(', ')} on ${date}`,
    });
  }
  return respond(200, {
    match_found: true,
    contract_id: match.contract.id,
    message: `Active contract found covering ${cptCodes.length} CPT code${cptCodes.length === 1 ? '' : 's'}`,
  });
}

export function fullLookup(ctx: EngineContext, req: EngineRequest): EngineResponse {
  const body = jsonBody(req);
  const errors: FieldError[] = [];
  const contractId = body.contract_id;
  if (typeof contractId !== 'string' || contractId === '') {
    errors.push({ field: 'contract_id', message: 'is required: the contract_id from a blind lookup' });
  } else if (!CONTRACT_ID_FORM.test(contractId)) {
    errors.push({
      field: 'contract_id',
      message: 'is not a contract identifier (expected the contract_id a blind lookup returned, e.g. ctr_4f9a2c71e8b3d605)',
    });
  }
  check(errors, 'npi', npiProblem(body.npi));
  check(errors, 'group_id', groupIdProblem(body.group_id));
  check(errors, 'cpt_code', cptProblem(body.cpt_code));
  if (body.admit_type !== undefined && !(ADMIT_TYPES as readonly unknown[]).includes(body.admit_type)) {
    errors.push({ field: 'admit_type', message: `must be one of ${ADMIT_TYPES.join(', ')}` });
  }
  // The rate in force on a date (docs/money-rules.md "Rates in force on each date"): the service
  // date asked for, else today on the engine clock.
  if (body.service_date !== undefined) check(errors, 'service_date', isoDateProblem(body.service_date));
  fail(errors);
  const date = (body.service_date as string | undefined) ?? isoDate(ctx.clock.now());
  const contract = contractById(ctx.db, contractId as string);
  // An unknown contract, one of another provider or group, and one not active on the date all look
  // the same from outside: the full lookup never confirms what a blind lookup would not.
  if (!contract || contract.npi !== body.npi || contract.group_id !== body.group_id || !isActiveOn(contract, date)) {
    return respond(404, {
      error: 'contract_not_found',
      contract_id: contractId,
      message: `Contract ${String(contractId)} was not found for this provider and group, or is not active on ${date}`,
    });
  }
  const rate = rateOn(ctx.db, contract.id, body.cpt_code as string, date);
  if (!rate) {
    return respond(404, {
      error: 'code_not_covered',
      contract_id: contract.id,
      cpt_code: body.cpt_code,
      message: `Contract ${contract.contract_number} has no rate for CPT ${String(body.cpt_code)} in force on ${date}`,
    });
  }
  const negotiated = contractRate(contract.rate_type).negotiatedRateCents(rate.negotiated_rate_cents, contract.bundle_rate_cents);
  return respond(200, {
    contract_id: contract.id,
    contract_number: contract.contract_number,
    effective_date: contract.effective_date,
    termination_date: contract.termination_date,
    network_tier: contract.network_tier,
    rate_type: contract.rate_type,
    negotiated_rate: negotiated === null ? null : centsToAmount(negotiated),
    medicare_multiplier: contract.medicare_multiplier === null ? null : Number(contract.medicare_multiplier),
    bundle_type: contract.bundle_type,
    anesthesia_included: contract.anesthesia_included === 1,
    service_date: date,
    rate_effective_from: rate.effective_from,
    rate_effective_to: rate.effective_to,
  });
}
