// Moves every encounter whose next step the engine clock has reached: adjudications become
// visible, transfers arrive and are reconciled. Runs before each request, so state is a pure
// function of the stored events and the clock.
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { anythingDueAt } from '../store/encounters.js';
import { asActor, ENGINE_ACTOR } from './audit.js';
import { completeDueClaims } from './reveal.js';
import { completeDueSettlements } from './settlement.js';

export function advanceEncounters(ctx: EngineContext): void {
  // What the clock made due is the engine's doing, whoever's request moved the clock.
  asActor(ctx.db, ENGINE_ACTOR, () => {
    completeDueClaims(ctx);
    completeDueSettlements(ctx);
  });
}

/**
 * Whether anything waits for the engine clock (an adjudication to reveal, a transfer to arrive):
 * one read over the two partial indexes of what is pending, so that a read request with nothing due
 * (nearly all of them) runs inside its read transaction and takes no other.
 */
export function anythingDue(ctx: EngineContext): boolean {
  return anythingDueAt(ctx.db, isoSeconds(ctx.clock.now()));
}

/**
 * Inside a write transaction: moves what is due, if anything, as the engine does before a request.
 * The read of what is due then costs no read transaction of its own. Completing is a function of the
 * stored events and the clock (each step is dated by its ready time, not by when it runs), so if the
 * request's transaction rolls back, the next request completes the same steps the same way.
 */
export function advanceDue(ctx: EngineContext): void {
  if (anythingDue(ctx)) advanceEncounters(ctx);
}
