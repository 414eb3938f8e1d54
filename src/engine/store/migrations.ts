// Numbered migrations; PRAGMA user_version holds the schema version. Append, never edit a landed one.

/**
 * Money in time: rates in force on a date, deductibles in their own plan year, and no
 * event recorded before an earlier one. Named so that its data hook (seed.ts) finds it by its text,
 * whatever number it ends up with.
 * - contract_rates gets an effective period [effective_from, effective_to] (null: open): a
 *   finalized schedule adds rates from its effective date and closes the ones it replaces, where it
 *   overwrote them in place. The key (contract_id, cpt_code) becomes (contract_id, cpt_code,
 *   effective_from), so the table is rebuilt; rates already there are in force from their contract's
 *   effective date, open. The counter of migration 13 is kept by triggers on the rebuilt table.
 * - contract_rate_records say from when the finalized rate is in force.
 * - settings 'recorded_until': the latest time the engine has recorded, kept by triggers that write
 *   only when it grows, so the engine's "now" is never earlier than it (engine/clock.ts) and a clock
 *   moved back is refused. Every event that moves money or cannot be undone is an audit record (a
 *   claim accepted, a funding, each settlement step, a reconciliation, a finalized schedule, a key);
 *   the one other dated step is an adjudication revealed at its ready time (completed_at). A
 *   trigger per history entry instead cost a claim more CPU (docs/numbers-history.md "Storage").
 * - member_deductibles is counted again from the stored adjudications, line by line (seed.ts).
 */
export const MONEY_IN_TIME = `
  CREATE TABLE contract_rates_dated (
    contract_id TEXT NOT NULL REFERENCES contracts(id),
    cpt_code TEXT NOT NULL,
    effective_from TEXT NOT NULL,
    effective_to TEXT,
    negotiated_rate_cents INTEGER,
    requires_preauth INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (contract_id, cpt_code, effective_from)
  ) WITHOUT ROWID;
  INSERT INTO contract_rates_dated (contract_id, cpt_code, effective_from, effective_to, negotiated_rate_cents, requires_preauth)
    SELECT r.contract_id, r.cpt_code, c.effective_date, NULL, r.negotiated_rate_cents, r.requires_preauth
    FROM contract_rates r JOIN contracts c ON c.id = r.contract_id;
  DROP TABLE contract_rates;
  ALTER TABLE contract_rates_dated RENAME TO contract_rates;
  CREATE TRIGGER contract_rates_generation_insert AFTER INSERT ON contract_rates BEGIN UPDATE settings SET value = value + 1 WHERE key = 'contracts_generation'; END;
  CREATE TRIGGER contract_rates_generation_update AFTER UPDATE ON contract_rates BEGIN UPDATE settings SET value = value + 1 WHERE key = 'contracts_generation'; END;
  CREATE TRIGGER contract_rates_generation_delete AFTER DELETE ON contract_rates BEGIN UPDATE settings SET value = value + 1 WHERE key = 'contracts_generation'; END;
  UPDATE settings SET value = value + 1 WHERE key = 'contracts_generation';

  ALTER TABLE contract_rate_records ADD COLUMN effective_date TEXT;
  UPDATE contract_rate_records SET effective_date = (SELECT effective_date FROM contracts c WHERE c.id = contract_rate_records.contract_id);

  INSERT INTO settings (key, value) SELECT 'recorded_until', COALESCE(MAX(t), '') FROM (
    SELECT MAX(at) AS t FROM audit_log
    UNION ALL SELECT MAX(timestamp) FROM history_entries
    UNION ALL SELECT MAX(submitted_at) FROM encounters
    UNION ALL SELECT MAX(completed_at) FROM encounters
    UNION ALL SELECT MAX(initiated_at) FROM settlements
    UNION ALL SELECT MAX(completed_at) FROM settlements
    UNION ALL SELECT MAX(failed_at) FROM settlements
    UNION ALL SELECT MAX(reconciled_at) FROM settlements
    UNION ALL SELECT MAX(created_at) FROM api_keys
    UNION ALL SELECT MAX(finalized_at) FROM rate_schedules
  );
  CREATE TRIGGER recorded_until_revealed AFTER UPDATE OF completed_at ON encounters
    WHEN NEW.completed_at > (SELECT value FROM settings WHERE key = 'recorded_until')
    BEGIN UPDATE settings SET value = NEW.completed_at WHERE key = 'recorded_until'; END;
  CREATE TRIGGER recorded_until_audit AFTER INSERT ON audit_log
    WHEN NEW.at > (SELECT value FROM settings WHERE key = 'recorded_until')
    BEGIN UPDATE settings SET value = NEW.at WHERE key = 'recorded_until'; END;
`;

/**
 * X12's published 837 examples: their members, billing providers and contracts are
 * reference data, written by this migration's data hook (seed.ts seedIgExamples), so that a database
 * of an earlier release gains them too. The text changes no schema; it is named so that its hook
 * finds it by its text, whatever number it ends up with.
 */
export const IG_EXAMPLES = `
  -- X12's published 837 examples: reference data only (seed.ts seedIgExamples).
`;

/**
 * Families: a member may be a dependent of another member, their subscriber (`members.subscriber_id`,
 * NULL for a subscriber or a member enrolled alone). An 837's patient loop (2000C) is resolved to the
 * dependent enrolled under its subscriber (docs/x12.md "A dependent patient"). The seed's family and
 * the published 837P example's subscriber are written by this migration's data hook (seed.ts
 * seedFamilies), found by its text whatever number it ends up with.
 */
export const FAMILIES = `
  ALTER TABLE members ADD COLUMN subscriber_id TEXT REFERENCES members(member_id);
  CREATE INDEX members_by_subscriber ON members(subscriber_id) WHERE subscriber_id IS NOT NULL;
`;

/**
 * A landed migration's text is frozen (test/unit/migrations.test.ts holds its digest), and one SQL
 * comment of migration 1 names, with a section number, the design notes that once lived outside the
 * repository. The name is spliced in so that the text stays byte for byte what databases ran; what
 * it cited is docs/api.md "Idempotency".
 */
const FROZEN_NOTES_NAME = ['DESIGN', 'md'].join('.');

export const MIGRATIONS: readonly string[] = [
  // 1: reference data, contracts, encounters (one claim = one encounter = one ledger entry), history.
  `
  CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE plans (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    payer_id TEXT NOT NULL,
    payer_name TEXT NOT NULL,
    deductible_cents INTEGER NOT NULL,
    copay_cents INTEGER NOT NULL,
    coinsurance_percent INTEGER NOT NULL
  );

  CREATE TABLE members (
    member_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    dob TEXT NOT NULL,
    plan_id TEXT NOT NULL REFERENCES plans(id),
    coverage_start TEXT NOT NULL,
    coverage_end TEXT,
    deductible_met_cents INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE providers (
    npi TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    group_id TEXT NOT NULL,
    facility_npi TEXT
  );

  CREATE TABLE cpt_codes (
    code TEXT PRIMARY KEY,
    description TEXT NOT NULL
  );

  CREATE TABLE contracts (
    id TEXT PRIMARY KEY,
    contract_number TEXT NOT NULL UNIQUE,
    npi TEXT NOT NULL,
    group_id TEXT NOT NULL,
    effective_date TEXT NOT NULL,
    termination_date TEXT,
    network_tier TEXT NOT NULL,
    rate_type TEXT NOT NULL,
    medicare_multiplier TEXT,
    bundle_type TEXT,
    bundle_rate_cents INTEGER,
    anesthesia_included INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX contracts_by_provider ON contracts (npi, group_id);

  CREATE TABLE contract_rates (
    contract_id TEXT NOT NULL REFERENCES contracts(id),
    cpt_code TEXT NOT NULL,
    negotiated_rate_cents INTEGER,
    requires_preauth INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (contract_id, cpt_code)
  );

  -- The small columns first and the JSON documents last: SQLite reads a row's columns in order, so
  -- a ledger page never walks through the documents' overflow pages.
  CREATE TABLE encounters (
    id TEXT PRIMARY KEY,
    ledger_id TEXT NOT NULL UNIQUE,
    encounter_number TEXT NOT NULL UNIQUE,
    submission_id TEXT NOT NULL UNIQUE,
    contract_id TEXT NOT NULL,
    member_id TEXT NOT NULL,
    provider_npi TEXT NOT NULL,
    claim_type TEXT NOT NULL,
    service_date TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    ready_at TEXT NOT NULL,
    completed_at TEXT,
    status TEXT NOT NULL,
    disposition TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    claim_response_id TEXT NOT NULL,
    aeob_reference TEXT NOT NULL,
    processor_trace_id TEXT NOT NULL,
    aeob_adjustment_cents INTEGER NOT NULL DEFAULT 0,
    -- What a ledger list item shows, kept here so that a page is one query.
    first_cpt_code TEXT NOT NULL,
    charge_cents INTEGER NOT NULL,
    allowed_cents INTEGER NOT NULL,
    deductible_cents INTEGER NOT NULL,
    copay_cents INTEGER NOT NULL,
    coinsurance_cents INTEGER NOT NULL,
    patient_cents INTEGER NOT NULL,
    benefit_cents INTEGER NOT NULL,
    -- Ledger status_progression: [{status, timestamp}], in order.
    progression_json TEXT NOT NULL DEFAULT '[]',
    claim_json TEXT NOT NULL,
    outcome_json TEXT NOT NULL,
    -- The plan benefits as they stood when the claim was adjudicated.
    benefits_json TEXT NOT NULL
  );
  CREATE INDEX encounters_by_status ON encounters (status, service_date DESC, submitted_at DESC, id);
  CREATE INDEX encounters_by_date ON encounters (service_date);
  CREATE INDEX encounters_by_provider ON encounters (provider_npi, service_date);
  CREATE INDEX encounters_by_fingerprint ON encounters (fingerprint);
  CREATE INDEX encounters_due ON encounters (ready_at) WHERE completed_at IS NULL;

  -- Ledger detail entries[]: the encounter's history records.
  CREATE TABLE history_entries (
    encounter_id TEXT NOT NULL REFERENCES encounters(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    reference TEXT,
    description TEXT NOT NULL,
    financial_impact_json TEXT,
    PRIMARY KEY (encounter_id, seq)
  );

  -- Idempotency-Key replays (${FROZEN_NOTES_NAME} section 3): the first response, for 24 hours.
  CREATE TABLE idempotency_keys (
    key TEXT NOT NULL,
    route TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status INTEGER NOT NULL,
    body_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (route, key)
  );
  `,
  // 2: funding, settlement and payouts; providers of each encounter for the ledger's NPI filter.
  `
  CREATE TABLE encounter_providers (
    encounter_id TEXT NOT NULL REFERENCES encounters(id),
    npi TEXT NOT NULL,
    PRIMARY KEY (encounter_id, npi)
  );
  CREATE INDEX encounter_providers_by_npi ON encounter_providers (npi);
  INSERT INTO encounter_providers (encounter_id, npi) SELECT id, provider_npi FROM encounters;

  CREATE TABLE settlements (
    id TEXT PRIMARY KEY,
    encounter_id TEXT NOT NULL UNIQUE REFERENCES encounters(id),
    processor_transfer_id TEXT NOT NULL,
    status TEXT NOT NULL,
    total_amount_cents INTEGER NOT NULL,
    authorization_code TEXT NOT NULL,
    notes TEXT,
    initiated_at TEXT NOT NULL,
    estimated_arrival TEXT NOT NULL,
    completed_at TEXT,
    reconciliation_status TEXT NOT NULL DEFAULT 'PENDING',
    match_status TEXT,
    aeob_amount_cents INTEGER,
    reconciled_at TEXT,
    refund_json TEXT
  );
  CREATE INDEX settlements_due ON settlements (estimated_arrival) WHERE status = 'INITIATED';

  CREATE TABLE payouts (
    settlement_id TEXT NOT NULL REFERENCES settlements(id),
    sequence INTEGER NOT NULL,
    provider_npi TEXT NOT NULL,
    provider_name TEXT NOT NULL,
    provider_role TEXT NOT NULL,
    processor_payout_id TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    fee_cents INTEGER NOT NULL,
    payout_status TEXT NOT NULL,
    PRIMARY KEY (settlement_id, sequence)
  );

  CREATE INDEX encounters_by_order ON encounters (service_date DESC, submitted_at DESC, id);
  `,
  // 3: the contract builder: SSP catalog versions, builder instances, rate schedules and their
  // items, the contract rate records a finalized schedule creates, and the settings it copies.
  `
  CREATE TABLE ssp_catalog (
    id TEXT PRIMARY KEY,
    version TEXT NOT NULL,
    code TEXT NOT NULL,
    name TEXT NOT NULL,
    level TEXT NOT NULL,
    medicare_rate_cents INTEGER NOT NULL,
    base_weight TEXT NOT NULL,
    primary_cpt_code TEXT NOT NULL,
    requires_anesthesia INTEGER NOT NULL,
    active INTEGER NOT NULL,
    UNIQUE (version, code)
  );
  CREATE INDEX ssp_catalog_listing ON ssp_catalog (version, level, active, code);

  CREATE TABLE builder_instances (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    contract_id TEXT NOT NULL REFERENCES contracts(id)
  );

  CREATE TABLE rate_schedules (
    id TEXT PRIMARY KEY,
    instance_id TEXT NOT NULL UNIQUE REFERENCES builder_instances(id),
    ssp_reference_type TEXT NOT NULL,
    scope_of_care TEXT NOT NULL,
    service_logic TEXT NOT NULL,
    elective_advance_hours INTEGER NOT NULL,
    non_elective_fallback TEXT NOT NULL,
    non_elective_fallback_percent TEXT NOT NULL,
    default_rate_type TEXT NOT NULL,
    default_rate_value TEXT NOT NULL,
    created_at TEXT NOT NULL,
    finalized_at TEXT
  );

  CREATE TABLE rate_schedule_items (
    id TEXT PRIMARY KEY,
    schedule_id TEXT NOT NULL REFERENCES rate_schedules(id),
    ssp_id TEXT NOT NULL,
    rate_type TEXT NOT NULL,
    rate_value TEXT NOT NULL,
    is_bundle_eligible INTEGER NOT NULL,
    bundle_type TEXT,
    notes TEXT NOT NULL,
    sort_order INTEGER NOT NULL,
    UNIQUE (schedule_id, ssp_id)
  );

  CREATE TABLE contract_rate_records (
    id TEXT PRIMARY KEY,
    contract_id TEXT NOT NULL REFERENCES contracts(id),
    ssp_code TEXT NOT NULL,
    cpt_code TEXT NOT NULL,
    rate_type TEXT NOT NULL,
    rate_value TEXT NOT NULL,
    allowed_amount_cents INTEGER NOT NULL,
    bundle_type TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX contract_rate_records_by_contract ON contract_rate_records (contract_id, cpt_code);

  ALTER TABLE contracts ADD COLUMN builder_settings_json TEXT;
  `,
  // 4: API keys for `tpa local serve`: only SHA-256 hashes are kept, with a prefix and last four
  // characters for display.
  `
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    -- The first key of its rotation chain: rate limits are counted per lineage.
    lineage TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    environment TEXT NOT NULL,
    prefix TEXT NOT NULL,
    last4 TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT
  );
  `,
  // 5: OAuth 2.0 access tokens for production over mutual TLS, kept as SHA-256 hashes and bound to
  // the client certificate they were issued to.
  `
  CREATE TABLE oauth_tokens (
    token_hash TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    client_id TEXT NOT NULL,
    certificate_fingerprint TEXT NOT NULL,
    scopes TEXT NOT NULL,
    issued_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  `,
  // 6: more than one settlement per encounter: a FAILED or REFUNDED transfer is kept and the
  // encounter can be funded again, each transfer numbered by `attempt` (1, 2, ...), the latest being
  // the current one. SQLite cannot drop a UNIQUE constraint, so the table is rebuilt. Payouts
  // reference settlements(id) and foreign keys are on: dropping a parent that still has children
  // counts a violation that nothing undoes, so the payouts are set aside meanwhile and put back.
  `
  PRAGMA defer_foreign_keys = ON;
  CREATE TABLE settlements_new (
    id TEXT PRIMARY KEY,
    encounter_id TEXT NOT NULL REFERENCES encounters(id),
    attempt INTEGER NOT NULL DEFAULT 1,
    processor_transfer_id TEXT NOT NULL,
    status TEXT NOT NULL,
    total_amount_cents INTEGER NOT NULL,
    authorization_code TEXT NOT NULL,
    notes TEXT,
    initiated_at TEXT NOT NULL,
    estimated_arrival TEXT NOT NULL,
    completed_at TEXT,
    reconciliation_status TEXT NOT NULL DEFAULT 'PENDING',
    match_status TEXT,
    aeob_amount_cents INTEGER,
    reconciled_at TEXT,
    refund_json TEXT,
    failed_at TEXT,
    UNIQUE (encounter_id, attempt)
  );
  INSERT INTO settlements_new (id, encounter_id, attempt, processor_transfer_id, status, total_amount_cents, authorization_code, notes,
      initiated_at, estimated_arrival, completed_at, reconciliation_status, match_status, aeob_amount_cents, reconciled_at, refund_json)
    SELECT id, encounter_id, 1, processor_transfer_id, status, total_amount_cents, authorization_code, notes,
      initiated_at, estimated_arrival, completed_at, reconciliation_status, match_status, aeob_amount_cents, reconciled_at, refund_json
    FROM settlements;
  CREATE TEMP TABLE payouts_kept AS SELECT * FROM payouts;
  DELETE FROM payouts;
  DROP TABLE settlements;
  ALTER TABLE settlements_new RENAME TO settlements;
  CREATE INDEX settlements_due ON settlements (estimated_arrival) WHERE status = 'INITIATED';
  INSERT INTO payouts (settlement_id, sequence, provider_npi, provider_name, provider_role, processor_payout_id, amount_cents, fee_cents, payout_status)
    SELECT settlement_id, sequence, provider_npi, provider_name, provider_role, processor_payout_id, amount_cents, fee_cents, payout_status
    FROM payouts_kept;
  DROP TABLE payouts_kept;
  `,
  // 7: money rules line by line: the lines already paid, for duplicates and bundle
  // episodes; the deductible met per member and plan year (a plan year starts on plans.plan_year_start,
  // MM-DD), on top of members.deductible_met_cents, now what each plan year starts with. Existing
  // encounters and deductible figures are carried over by SEEDS[6] (seed.ts carryOverLineRules).
  `
  ALTER TABLE plans ADD COLUMN plan_year_start TEXT NOT NULL DEFAULT '01-01';

  CREATE TABLE member_deductibles (
    member_id TEXT NOT NULL REFERENCES members(member_id),
    plan_year TEXT NOT NULL,
    met_cents INTEGER NOT NULL,
    PRIMARY KEY (member_id, plan_year)
  );

  -- Keyed for the duplicate look-up (a member's lines on given dates) and without a rowid, so that
  -- recording a claim's lines writes one b-tree, not a table and an index.
  CREATE TABLE paid_lines (
    member_id TEXT NOT NULL,
    service_date TEXT NOT NULL,
    cpt_code TEXT NOT NULL,
    provider_npi TEXT NOT NULL,
    encounter_id TEXT NOT NULL REFERENCES encounters(id),
    sequence INTEGER NOT NULL,
    contract_id TEXT NOT NULL,
    episode_start TEXT,
    PRIMARY KEY (member_id, service_date, cpt_code, provider_npi, encounter_id, sequence)
  ) WITHOUT ROWID;
  CREATE INDEX paid_lines_by_episode ON paid_lines (member_id, contract_id, episode_start) WHERE episode_start IS NOT NULL;
  -- Duplicates are found line by line in paid_lines now; the claim fingerprint is no longer looked up.
  DROP INDEX IF EXISTS encounters_by_fingerprint;
  `,
  // 8: ledger pages at any depth. A page is found from counts kept per service day and
  // per month (for every ledger status, over all encounters and per NPI of the encounter), then read
  // from one narrow index over the days it spans, so a page at offset 90,000 costs what the first
  // one does. The counts are kept by triggers, in the transaction of the write that changes them.
  // The indexes no query uses any more go, so a claim writes fewer b-trees.
  `
  DROP INDEX IF EXISTS encounters_by_status;
  DROP INDEX IF EXISTS encounters_by_date;
  DROP INDEX IF EXISTS encounters_by_provider;
  DROP INDEX IF EXISTS encounters_by_order;
  CREATE INDEX encounters_listing ON encounters (service_date DESC, submitted_at DESC, id, status);

  -- scope is '' for every encounter, else an NPI of the encounter (encounter_providers).
  CREATE TABLE ledger_days (
    scope TEXT NOT NULL,
    status TEXT NOT NULL,
    day TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (scope, status, day)
  ) WITHOUT ROWID;
  CREATE TABLE ledger_months (
    scope TEXT NOT NULL,
    status TEXT NOT NULL,
    month TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (scope, status, month)
  ) WITHOUT ROWID;
  INSERT INTO ledger_days SELECT '', status, service_date, COUNT(*) FROM encounters GROUP BY status, service_date;
  INSERT INTO ledger_days SELECT p.npi, e.status, e.service_date, COUNT(*) FROM encounter_providers p JOIN encounters e ON e.id = p.encounter_id GROUP BY p.npi, e.status, e.service_date;
  INSERT INTO ledger_months SELECT scope, status, substr(day, 1, 7), SUM(n) FROM ledger_days GROUP BY scope, status, substr(day, 1, 7);

  CREATE TRIGGER ledger_count_insert AFTER INSERT ON encounters BEGIN
    INSERT INTO ledger_days VALUES ('', NEW.status, NEW.service_date, 1) ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO ledger_months VALUES ('', NEW.status, substr(NEW.service_date, 1, 7), 1) ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER ledger_count_provider AFTER INSERT ON encounter_providers BEGIN
    INSERT INTO ledger_days SELECT NEW.npi, status, service_date, 1 FROM encounters WHERE id = NEW.encounter_id ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO ledger_months SELECT NEW.npi, status, substr(service_date, 1, 7), 1 FROM encounters WHERE id = NEW.encounter_id ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER ledger_count_status AFTER UPDATE OF status ON encounters WHEN OLD.status <> NEW.status BEGIN
    UPDATE ledger_days SET n = n - 1 WHERE status = OLD.status AND day = OLD.service_date
      AND (scope = '' OR scope IN (SELECT npi FROM encounter_providers WHERE encounter_id = NEW.id));
    UPDATE ledger_months SET n = n - 1 WHERE status = OLD.status AND month = substr(OLD.service_date, 1, 7)
      AND (scope = '' OR scope IN (SELECT npi FROM encounter_providers WHERE encounter_id = NEW.id));
    INSERT INTO ledger_days SELECT '', NEW.status, NEW.service_date, 1 UNION ALL SELECT npi, NEW.status, NEW.service_date, 1 FROM encounter_providers WHERE encounter_id = NEW.id
      ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO ledger_months SELECT '', NEW.status, substr(NEW.service_date, 1, 7), 1 UNION ALL SELECT npi, NEW.status, substr(NEW.service_date, 1, 7), 1 FROM encounter_providers WHERE encounter_id = NEW.id
      ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  `,
  // 9: the counts keyed by (scope, day, status) instead of (scope, status, day): the days a page spans
  // are then one range of the key whatever the status filter, where migration 8's key made a reading
  // of one month's days walk every status's days of the scope, and the status trigger seeks each
  // count it moves instead of scanning the table. Counts are derived data: they are
  // counted again from the encounters, and the triggers are written again (migration 8 stays as it
  // landed).
  `
  DROP TRIGGER ledger_count_insert;
  DROP TRIGGER ledger_count_provider;
  DROP TRIGGER ledger_count_status;
  DROP TABLE ledger_days;
  DROP TABLE ledger_months;
  -- scope is '' for every encounter, else an NPI of the encounter (encounter_providers).
  CREATE TABLE ledger_days (
    scope TEXT NOT NULL,
    status TEXT NOT NULL,
    day TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (scope, day, status)
  ) WITHOUT ROWID;
  CREATE TABLE ledger_months (
    scope TEXT NOT NULL,
    status TEXT NOT NULL,
    month TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (scope, month, status)
  ) WITHOUT ROWID;
  INSERT INTO ledger_days SELECT '', status, service_date, COUNT(*) FROM encounters GROUP BY status, service_date;
  INSERT INTO ledger_days SELECT p.npi, e.status, e.service_date, COUNT(*) FROM encounter_providers p JOIN encounters e ON e.id = p.encounter_id GROUP BY p.npi, e.status, e.service_date;
  INSERT INTO ledger_months SELECT scope, status, substr(day, 1, 7), SUM(n) FROM ledger_days GROUP BY scope, status, substr(day, 1, 7);

  CREATE TRIGGER ledger_count_insert AFTER INSERT ON encounters BEGIN
    INSERT INTO ledger_days VALUES ('', NEW.status, NEW.service_date, 1) ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO ledger_months VALUES ('', NEW.status, substr(NEW.service_date, 1, 7), 1) ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER ledger_count_provider AFTER INSERT ON encounter_providers BEGIN
    INSERT INTO ledger_days SELECT NEW.npi, status, service_date, 1 FROM encounters WHERE id = NEW.encounter_id ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO ledger_months SELECT NEW.npi, status, substr(service_date, 1, 7), 1 FROM encounters WHERE id = NEW.encounter_id ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER ledger_count_status AFTER UPDATE OF status ON encounters WHEN OLD.status <> NEW.status BEGIN
    UPDATE ledger_days SET n = n - 1
      WHERE scope IN (SELECT '' UNION ALL SELECT npi FROM encounter_providers WHERE encounter_id = NEW.id) AND day = OLD.service_date AND status = OLD.status;
    UPDATE ledger_months SET n = n - 1
      WHERE scope IN (SELECT '' UNION ALL SELECT npi FROM encounter_providers WHERE encounter_id = NEW.id) AND month = substr(OLD.service_date, 1, 7) AND status = OLD.status;
    INSERT INTO ledger_days SELECT '', NEW.status, NEW.service_date, 1 UNION ALL SELECT npi, NEW.status, NEW.service_date, 1 FROM encounter_providers WHERE encounter_id = NEW.id
      ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO ledger_months SELECT '', NEW.status, substr(NEW.service_date, 1, 7), 1 UNION ALL SELECT npi, NEW.status, substr(NEW.service_date, 1, 7), 1 FROM encounter_providers WHERE encounter_id = NEW.id
      ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  `,
  // 10: a claim writes fewer b-trees (each is a page of the claim's transaction in the WAL).
  // history_entries and encounter_providers are stored in their primary key (WITHOUT ROWID), not in a
  // rowid table beside an index of the same key; encounter_providers_by_npi goes (no query used it:
  // a page's NPI filter seeks the primary key).
  `
  CREATE TABLE history_copy AS SELECT * FROM history_entries;
  DROP TABLE history_entries;
  CREATE TABLE history_entries (
    encounter_id TEXT NOT NULL REFERENCES encounters(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    reference TEXT,
    description TEXT NOT NULL,
    financial_impact_json TEXT,
    PRIMARY KEY (encounter_id, seq)
  ) WITHOUT ROWID;
  INSERT INTO history_entries SELECT * FROM history_copy;
  DROP TABLE history_copy;

  -- Dropping the table drops its index and its count trigger; the counts it fed are kept as they are.
  CREATE TABLE providers_copy AS SELECT * FROM encounter_providers;
  DROP TABLE encounter_providers;
  CREATE TABLE encounter_providers (
    encounter_id TEXT NOT NULL REFERENCES encounters(id),
    npi TEXT NOT NULL,
    PRIMARY KEY (encounter_id, npi)
  ) WITHOUT ROWID;
  INSERT INTO encounter_providers SELECT * FROM providers_copy;
  DROP TABLE providers_copy;
  CREATE TRIGGER ledger_count_provider AFTER INSERT ON encounter_providers BEGIN
    INSERT INTO ledger_days SELECT NEW.npi, status, service_date, 1 FROM encounters WHERE id = NEW.encounter_id ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO ledger_months SELECT NEW.npi, status, substr(service_date, 1, 7), 1 FROM encounters WHERE id = NEW.encounter_id ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  `,
  // 11: the sandbox trigger for the contract's MISSING_AEOB (`tpa local simulate missing-aeob`): the payer
  // never sent the encounter's AEOB, so its settlement has nothing to be matched against.
  `
  ALTER TABLE encounters ADD COLUMN aeob_missing INTEGER NOT NULL DEFAULT 0;
  `,
  // 12: the audit chain: every money-moving or irreversible action appends a record in
  // the transaction of the action, its hash covering the record before (domain/audit.ts). A database
  // upgraded from before starts its chain at the upgrade. Changing or deleting a record is refused
  // by triggers; one who drops them is caught by `tpa local audit verify`.
  `
  CREATE TABLE audit_log (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    type TEXT NOT NULL,
    subject TEXT NOT NULL,
    data_json TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
  );
  CREATE INDEX audit_log_by_type ON audit_log (type, seq);
  CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
  CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
  `,
  // 13: a claim reads its provider's contracts from memory (store/contracts.ts) while this counter,
  // moved by any change to a contract or its rates (a finalized rate schedule, from this process or
  // another), stays where it was. The audit log's index by type goes: it was a page of every
  // claim's transaction for \`tpa local audit list --type\`, which reads the log in order instead.
  `
  INSERT INTO settings (key, value) VALUES ('contracts_generation', '0');
  CREATE TRIGGER contracts_generation_insert AFTER INSERT ON contracts BEGIN UPDATE settings SET value = value + 1 WHERE key = 'contracts_generation'; END;
  CREATE TRIGGER contracts_generation_update AFTER UPDATE ON contracts BEGIN UPDATE settings SET value = value + 1 WHERE key = 'contracts_generation'; END;
  CREATE TRIGGER contracts_generation_delete AFTER DELETE ON contracts BEGIN UPDATE settings SET value = value + 1 WHERE key = 'contracts_generation'; END;
  CREATE TRIGGER contract_rates_generation_insert AFTER INSERT ON contract_rates BEGIN UPDATE settings SET value = value + 1 WHERE key = 'contracts_generation'; END;
  CREATE TRIGGER contract_rates_generation_update AFTER UPDATE ON contract_rates BEGIN UPDATE settings SET value = value + 1 WHERE key = 'contracts_generation'; END;
  CREATE TRIGGER contract_rates_generation_delete AFTER DELETE ON contract_rates BEGIN UPDATE settings SET value = value + 1 WHERE key = 'contracts_generation'; END;
  DROP INDEX audit_log_by_type;
  `,
  // 14: a claim writes two b-trees fewer (each b-tree a claim changes is a page or more of
  // its transaction in the WAL). ledger_id and encounter_number were UNIQUE, so each had an index that
  // no query reads: both are made unique where they are made (a new id; the next rowid under the
  // write lock). SQLite cannot drop a UNIQUE constraint, so the table is rebuilt with its rowids (they
  // number the encounters); the runner turns foreign keys off around the migrations and checks them
  // before they commit (store/db.ts). The triggers and indexes on encounters are made again as
  // migrations 1, 8, 9 and 10 made them; ledger_count_provider reads encounters, so it goes first.
  `
  CREATE TABLE encounters_rebuilt (
    id TEXT PRIMARY KEY,
    ledger_id TEXT NOT NULL,
    encounter_number TEXT NOT NULL,
    submission_id TEXT NOT NULL UNIQUE,
    contract_id TEXT NOT NULL,
    member_id TEXT NOT NULL,
    provider_npi TEXT NOT NULL,
    claim_type TEXT NOT NULL,
    service_date TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    ready_at TEXT NOT NULL,
    completed_at TEXT,
    status TEXT NOT NULL,
    disposition TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    claim_response_id TEXT NOT NULL,
    aeob_reference TEXT NOT NULL,
    processor_trace_id TEXT NOT NULL,
    aeob_adjustment_cents INTEGER NOT NULL DEFAULT 0,
    first_cpt_code TEXT NOT NULL,
    charge_cents INTEGER NOT NULL,
    allowed_cents INTEGER NOT NULL,
    deductible_cents INTEGER NOT NULL,
    copay_cents INTEGER NOT NULL,
    coinsurance_cents INTEGER NOT NULL,
    patient_cents INTEGER NOT NULL,
    benefit_cents INTEGER NOT NULL,
    progression_json TEXT NOT NULL DEFAULT '[]',
    claim_json TEXT NOT NULL,
    outcome_json TEXT NOT NULL,
    benefits_json TEXT NOT NULL,
    aeob_missing INTEGER NOT NULL DEFAULT 0
  );
  INSERT INTO encounters_rebuilt (rowid, id, ledger_id, encounter_number, submission_id, contract_id, member_id, provider_npi, claim_type, service_date, submitted_at, ready_at, completed_at, status, disposition, fingerprint, claim_response_id, aeob_reference, processor_trace_id, aeob_adjustment_cents, first_cpt_code, charge_cents, allowed_cents, deductible_cents, copay_cents, coinsurance_cents, patient_cents, benefit_cents, progression_json, claim_json, outcome_json, benefits_json, aeob_missing)
    SELECT rowid, id, ledger_id, encounter_number, submission_id, contract_id, member_id, provider_npi, claim_type, service_date, submitted_at, ready_at, completed_at, status, disposition, fingerprint, claim_response_id, aeob_reference, processor_trace_id, aeob_adjustment_cents, first_cpt_code, charge_cents, allowed_cents, deductible_cents, copay_cents, coinsurance_cents, patient_cents, benefit_cents, progression_json, claim_json, outcome_json, benefits_json, aeob_missing FROM encounters ORDER BY rowid;
  DROP TRIGGER ledger_count_provider;
  DROP TABLE encounters;
  ALTER TABLE encounters_rebuilt RENAME TO encounters;
  CREATE INDEX encounters_due ON encounters (ready_at) WHERE completed_at IS NULL;
  CREATE INDEX encounters_listing ON encounters (service_date DESC, submitted_at DESC, id, status);
  CREATE TRIGGER ledger_count_insert AFTER INSERT ON encounters BEGIN
    INSERT INTO ledger_days VALUES ('', NEW.status, NEW.service_date, 1) ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO ledger_months VALUES ('', NEW.status, substr(NEW.service_date, 1, 7), 1) ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER ledger_count_status AFTER UPDATE OF status ON encounters WHEN OLD.status <> NEW.status BEGIN
    UPDATE ledger_days SET n = n - 1
      WHERE scope IN (SELECT '' UNION ALL SELECT npi FROM encounter_providers WHERE encounter_id = NEW.id) AND day = OLD.service_date AND status = OLD.status;
    UPDATE ledger_months SET n = n - 1
      WHERE scope IN (SELECT '' UNION ALL SELECT npi FROM encounter_providers WHERE encounter_id = NEW.id) AND month = substr(OLD.service_date, 1, 7) AND status = OLD.status;
    INSERT INTO ledger_days SELECT '', NEW.status, NEW.service_date, 1 UNION ALL SELECT npi, NEW.status, NEW.service_date, 1 FROM encounter_providers WHERE encounter_id = NEW.id
      ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO ledger_months SELECT '', NEW.status, substr(NEW.service_date, 1, 7), 1 UNION ALL SELECT npi, NEW.status, substr(NEW.service_date, 1, 7), 1 FROM encounter_providers WHERE encounter_id = NEW.id
      ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER ledger_count_provider AFTER INSERT ON encounter_providers BEGIN
    INSERT INTO ledger_days SELECT NEW.npi, status, service_date, 1 FROM encounters WHERE id = NEW.encounter_id ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO ledger_months SELECT NEW.npi, status, substr(service_date, 1, 7), 1 FROM encounters WHERE id = NEW.encounter_id ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  `,
  // 15: one service paid once per fee kind. A paid line records its fee kind (its payee's
  // role in the providers registry), its allowed amount, and for the anesthesia-included rule
  // whether it included its member's anesthesia that day and how much anesthesia paid before was
  // deducted from it. Lines stored before are filled in from the registry and their stored
  // adjudications; a line allowed 0.00 was never paid, so it goes (it made later lines duplicates),
  // but for a bundle part whose episode was paid.
  `
  ALTER TABLE paid_lines ADD COLUMN fee_kind TEXT NOT NULL DEFAULT '';
  ALTER TABLE paid_lines ADD COLUMN allowed_cents INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE paid_lines ADD COLUMN includes_anesthesia INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE paid_lines ADD COLUMN anesthesia_deducted_cents INTEGER NOT NULL DEFAULT 0;
  UPDATE paid_lines SET
    fee_kind = COALESCE(
      (SELECT role FROM providers WHERE npi = paid_lines.provider_npi),
      (SELECT CASE claim_type WHEN 'institutional' THEN 'FACILITY' ELSE 'SURGEON' END FROM encounters WHERE id = paid_lines.encounter_id),
      'SURGEON'),
    allowed_cents = COALESCE(
      (SELECT json_extract(l.value, '$.allowedCents') FROM encounters e, json_each(e.outcome_json, '$.lines') l
       WHERE e.id = paid_lines.encounter_id AND json_extract(l.value, '$.sequence') = paid_lines.sequence),
      0);
  UPDATE paid_lines SET includes_anesthesia = 1
    WHERE allowed_cents > 0 AND fee_kind <> 'ANESTHESIA' AND contract_id IN (SELECT id FROM contracts WHERE anesthesia_included = 1);
  -- A bundle line stays when the parts of its episode on its claim were allowed more than 0.00 in
  -- all (the rate is spread by charge: a small part's share may be paid with another part).
  DELETE FROM paid_lines WHERE allowed_cents = 0 AND (episode_start IS NULL OR NOT EXISTS (
    SELECT 1 FROM paid_lines q WHERE q.encounter_id = paid_lines.encounter_id AND q.contract_id = paid_lines.contract_id
      AND q.episode_start = paid_lines.episode_start AND q.allowed_cents > 0));
  `,
  // 16: a FAILED transfer moved no money: its payouts charged no fee. From here on the audit
  // chain also records each payout, each reconciliation's outcome and each AEOB change, so that
  // `tpa local audit verify --deep` can check the money tables against it; this notes where that
  // began (the last record, encounter and settlement before it): rows made before are checked as far
  // as the chain knows them.
  `
  UPDATE payouts SET fee_cents = 0 WHERE payout_status = 'FAILED';
  INSERT OR REPLACE INTO settings (key, value) VALUES ('audit_deep_from', json_object(
    'seq', (SELECT COALESCE(MAX(seq), 0) FROM audit_log),
    'encounter_rowid', (SELECT COALESCE(MAX(rowid), 0) FROM encounters),
    'settlement_rowid', (SELECT COALESCE(MAX(rowid), 0) FROM settlements)));
  `,
  // 17: rates in force on a date, deductibles per line plan year, the latest recorded time (MONEY_IN_TIME above).
  MONEY_IN_TIME,
  // 18: who may do what.
  // - contract_build, the builder's write scope, goes to the keys that had every scope of the contract (docs/api.md) (the
  //   operator's keys, made without --scopes), so that they keep changing rate schedules; a narrower key
  //   does not gain it.
  // - A key records the key it was rotated from (its parent: the one before it in its lineage, as
  //   rotation only ever goes from a lineage's newest key) and when it was revoked.
  // - Idempotency-Key replays belong to a caller (environment and key lineage, 'local' in-process):
  //   the primary key changes, so the table is rebuilt. Rows kept from before belong to no caller ('')
  //   and are replayed to anyone, as they were, for the rest of their 24 hours.
  // - OAuth clients of the mutual-TLS server are registered with the scopes they may have.
  `
  UPDATE api_keys SET scopes = json_insert(scopes, '$[#]', 'contract_build')
    WHERE (SELECT COUNT(DISTINCT value) FROM json_each(api_keys.scopes)
           WHERE value IN ('contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access')) = 4
      AND NOT EXISTS (SELECT 1 FROM json_each(api_keys.scopes) WHERE value = 'contract_build');
  ALTER TABLE api_keys ADD COLUMN parent_id TEXT;
  ALTER TABLE api_keys ADD COLUMN revoked_at TEXT;
  UPDATE api_keys SET parent_id = (SELECT p.id FROM api_keys p WHERE p.lineage = api_keys.lineage AND p.rowid < api_keys.rowid ORDER BY p.rowid DESC LIMIT 1);
  CREATE INDEX api_keys_by_lineage ON api_keys (lineage);

  CREATE TABLE idempotency_keys_by_caller (
    caller TEXT NOT NULL,
    key TEXT NOT NULL,
    route TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status INTEGER NOT NULL,
    body_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (route, key, caller)
  );
  INSERT INTO idempotency_keys_by_caller (caller, key, route, request_hash, status, body_json, created_at)
    SELECT '', key, route, request_hash, status, body_json, created_at FROM idempotency_keys;
  DROP TABLE idempotency_keys;
  ALTER TABLE idempotency_keys_by_caller RENAME TO idempotency_keys;

  CREATE TABLE oauth_clients (
    client_id TEXT PRIMARY KEY,
    scopes TEXT NOT NULL,
    registered_at TEXT NOT NULL
  );
  `,
  // 19: who acted, in each audit record from here on, inside its hash (domain/audit.ts).
  // Records made before keep no actor and their hashes, which leave it out: they verify as before.
  `
  ALTER TABLE audit_log ADD COLUMN actor TEXT;
  `,
  // 20: X12's published 837 examples' members, providers and contracts (IG_EXAMPLES above).
  IG_EXAMPLES,
  // 21: a paid line keeps its procedure modifiers (':'-joined, '' for none): a distinct-service
  // modifier (59, 76…) makes a line another service of its code and date (docs/money-rules.md
  // "Duplicates"). Claims stored before kept no modifiers, so their lines have none, as they were judged.
  // A bundle part BUNDLED into an episode already paid is kept too (\`included\` 1), for its day alone:
  // the episode holds that day, so it starts on its earliest day whichever claim came first
  // (docs/money-rules.md "Bundles"); such a row is no paid line (no duplicate's original, no copay).
  `
  ALTER TABLE paid_lines ADD COLUMN modifiers TEXT NOT NULL DEFAULT '';
  ALTER TABLE paid_lines ADD COLUMN included INTEGER NOT NULL DEFAULT 0;
  `,
  // 22: a paid line's fee kind is the role of the provider who rendered it, even when the billing
  // provider is paid for it (docs/money-rules.md "Duplicates"). A line recorded before under its
  // payee's role, paid to the billing provider for a care-team member without a contract (Valley
  // Family Clinic), takes the role of the member it named first, so the facility's own fee for the
  // procedure is no duplicate of it.
  `
  UPDATE paid_lines SET fee_kind = COALESCE((
      SELECT p.role FROM encounters e, json_each(e.claim_json, '$.lines') l, json_each(e.claim_json, '$.careTeam') m, providers p
      WHERE e.id = paid_lines.encounter_id AND json_extract(l.value, '$.sequence') = paid_lines.sequence
        AND json_extract(m.value, '$.sequence') = json_extract(l.value, '$.careTeamSequences[0]')
        AND p.npi = json_extract(m.value, '$.npi')
      ORDER BY m.key LIMIT 1), fee_kind)
    WHERE provider_npi = (SELECT provider_npi FROM encounters WHERE id = paid_lines.encounter_id);
  `,
  // 23: the database's identity, made once when the file is created (or first opened by a tpa that
  // names databases): a journal of a long job records it, so that a job's journal from another
  // database (a reset, another data directory, another server) is never resumed against this one
  // (docs/claim-batches.md "Claim batches"). Real time: it dates the file, not an event of the engine.
  `
  INSERT OR IGNORE INTO settings (key, value) VALUES ('database', json_object(
    'id', 'db_' || lower(hex(randomblob(10))),
    'created_at', strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
  `,
  // 24: an OAuth client of the mutual-TLS server can be revoked (`tpa local clients revoke`): the
  // client records when, and so does each token that was live then, so that neither comes back.
  `
  ALTER TABLE oauth_clients ADD COLUMN revoked_at TEXT;
  ALTER TABLE oauth_tokens ADD COLUMN revoked_at TEXT;
  `,
  // 25: families (FAMILIES above).
  FAMILIES,
  // 26: the payer's profile, plan configuration the 835 needs (docs/x12-835.md "835 out"): its federal
  // tax id (TRN03 and BPR10 are 1 and the EIN), its address (loop 1000A N3/N4) and its technical
  // contact (PER*BL), per payer id (plans.payer_id). The sandbox's payer is seeded; a payer without
  // a profile is remitted without them, which the 835 guide does not allow (remit says so).
  `
  CREATE TABLE payer_profiles (
    payer_id TEXT PRIMARY KEY,
    tax_id TEXT,
    address_line1 TEXT,
    address_line2 TEXT,
    city TEXT,
    state TEXT,
    postal_code TEXT,
    contact_name TEXT,
    contact_phone TEXT,
    contact_email TEXT,
    contact_url TEXT
  );
  INSERT INTO payer_profiles (payer_id, tax_id, address_line1, address_line2, city, state, postal_code, contact_name, contact_phone, contact_email, contact_url)
    VALUES ('PAYER-ACME', '990000001', '100 Sandbox Way', 'Suite 400', 'Springfield', 'IL', '62701', 'Acme Health Plan EDI Support', '8005550100', 'edi@acme-health.example', NULL);
  `,
  // 27: a paid line records the copay it took, so that a claim reads the copay each visit took
  // from the member's paid lines of its dates alone (store/paid-lines.ts visitCopaysTaken) instead of
  // every encounter those lines belong to and its stored adjudication. A line that took a copay was
  // allowed more than 0.00, so it is a paid line; the lines paid before take theirs from the
  // adjudication stored with their encounter.
  `
  ALTER TABLE paid_lines ADD COLUMN copay_cents INTEGER NOT NULL DEFAULT 0;
  UPDATE paid_lines SET copay_cents = COALESCE((
      SELECT json_extract(l.value, '$.copayCents') FROM encounters e, json_each(e.outcome_json, '$.lines') l
      WHERE e.id = paid_lines.encounter_id AND json_extract(l.value, '$.sequence') = paid_lines.sequence), 0)
    WHERE included = 0;
  `,
];
