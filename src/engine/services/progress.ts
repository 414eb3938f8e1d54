// Moves every encounter whose next step the engine clock has reached: adjudications become
// visible, transfers arrive and are reconciled. Runs before each request, so state is a pure
// function of the stored events and the clock.
import type { EngineContext } from '../context.js';
import { completeDueClaims } from './claims.js';
import { completeDueSettlements } from './settlement.js';

export function advanceEncounters(ctx: EngineContext): void {
  completeDueClaims(ctx);
  completeDueSettlements(ctx);
}
