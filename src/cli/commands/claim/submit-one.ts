// One claim of `tpa claim submit`, under the same journal rules as a batch's claims (jobs/claim-batch.ts):
// every single claim of a profile is journaled in one journal of single claims, so that the same
// content submitted twice (the same file, a copy of it, the template piped twice) is seen. Sent
// before, it is sent again only on purpose: --again, or yes at a prompt on a terminal (default no);
// otherwise exit 4 naming the earlier submission (docs/claim-batches.md "One claim, exactly once too").
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type EarlierSubmission, type SingleResult, BatchJournal, journalVerdict, submitSingleClaim } from '../../../jobs/claim-batch.js';
import type { TpaClient } from '../../../client/client.js';
import { canonicalHash } from '../../../domain/canonical.js';
import { journalsDir } from '../../../jobs/journal.js';
import type { ParsedClaim } from '../../../domain/fhir-claim.js';
import { ConflictError, EXIT, TpaError } from '../../../errors.js';
import { screen } from '../../../render/screen.js';
import type { Context } from '../../context.js';
import { confirm, DeclinedError } from '../../prompt.js';

/** How long a single claim waits for another `claim submit` of the same profile to let the journal go (each holds it for one request). */
const LOCK_WAIT_MS = 60_000;

/** The journal of the single claims of the active profile (and base URL): in the data directory. */
export function singleJournalPath(ctx: Context): string {
  const profile = ctx.profile();
  const id = createHash('sha256')
    .update(JSON.stringify([profile.name, profile.base_url ?? '']))
    .digest('hex')
    .slice(0, 10);
  return join(journalsDir(ctx.paths.dataDir), `single-${profile.name.replace(/[^A-Za-z0-9-]/g, '_')}-${id}.ndjson`);
}

function earlierText(e: EarlierSubmission): string {
  return `submission ${e.submission_id} (encounter ${e.external_claim_id})${e.at ? ` on ${e.at}` : ''}${e.times > 1 ? `, sent ${e.times} times in all` : ''}`;
}

async function openJournal(ctx: Context): Promise<BatchJournal> {
  const profile = ctx.profile();
  const path = singleJournalPath(ctx);
  try {
    return await BatchJournal.open(path, {
      header: { kind: 'single', profile: profile.name, base_url: profile.base_url ?? null },
      lockWaitMs: LOCK_WAIT_MS,
    });
  } catch (err) {
    // A data directory that cannot be written is a failure of the machine's storage, as the local
    // database's is (exit 8): without its journal, a claim is not sent.
    if (err instanceof TpaError && /\b(EACCES|EROFS|EPERM)\b/.test(err.message))
      throw new TpaError(
        EXIT.NETWORK,
        'storage_failed',
        `the journal of single claims ${path} cannot be written (a read-only file or folder, or no permission); nothing was changed and nothing was sent`,
      );
    throw err;
  }
}

/**
 * Sends one claim exactly once: a claim already acknowledged from this machine is refused (exit 4)
 * unless --again, or asked about on a terminal (default no). The prompt is shown with the journal
 * let go (another submission may go on meanwhile), and what it answered is checked again after.
 */
export async function sendOneClaim(
  ctx: Context,
  client: TpaClient,
  claim: { source: string; text: string; value: unknown; parsed: ParsedClaim },
  opts: { again?: boolean; idempotencyKey?: string },
): Promise<SingleResult> {
  const value = claim.value ?? JSON.parse(claim.text.replace(/^\uFEFF/, ''));
  const sha256 = canonicalHash(value);
  let journal: BatchJournal | undefined = await openJournal(ctx);
  let confirmedTimes: number | undefined;
  try {
    const { earlier, resume } = journalVerdict(journal, sha256);
    const replay = earlier !== undefined && opts.idempotencyKey === earlier.idempotency_key;
    if (earlier && !resume && !replay && !opts.again) {
      if (ctx.yes || !ctx.canPrompt) {
        throw new ConflictError(`${claim.source}: the same claim was submitted before (${earlierText(earlier)}). Nothing was sent`, {
          code: 'already_submitted',
          details: earlier,
          hint: `to send it again on purpose, as a new claim: the same command with --again${ctx.yes ? ' (--yes confirms an action; it never sends a claim twice)' : ''}`,
        });
      }
      // Short lines: read at 80 columns before the question.
      ctx.note(
        screen(
          [
            `${claim.source}: this claim was submitted before from this machine`,
            `  same content (SHA-256 ${sha256.slice(0, 16)}…)`,
            `  submission ${earlier.submission_id}, encounter ${earlier.external_claim_id}`,
            ...(earlier.at ? [`  sent ${earlier.at}${earlier.times > 1 ? `, ${earlier.times} times in all` : ''}`] : []),
          ].join('\n'),
        ),
      );
      // The question is asked with the journal let go: a person may take their time.
      journal.close();
      journal = undefined;
      try {
        await confirm({ ...ctx, yes: false }, 'Send it again as a new claim (the service may call it a duplicate)?');
      } catch (err) {
        if (err instanceof DeclinedError && err.code === 'declined' && !/cancelled/.test(err.message))
          throw new ConflictError(`${claim.source}: not sent again (${earlierText(earlier)})`, { code: 'already_submitted', details: earlier });
        throw err;
      }
      confirmedTimes = earlier.times;
      journal = await openJournal(ctx);
    }
    return await submitSingleClaim(
      client,
      journal,
      { ...claim, value },
      {
        key: opts.idempotencyKey,
        // Yes to what was shown: sent again once more than that meanwhile, it is asked again.
        again: (e) => opts.again === true || e.times === confirmedTimes,
      },
    );
  } finally {
    journal?.close();
  }
}
