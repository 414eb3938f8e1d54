// Whether the prompts (prompt.ts) are drawn without colour or bold: each run's context says it, as
// --no-color, NO_COLOR and a stderr that is no terminal decide it for the rest of stderr. A module
// of its own, so that the context sets it without loading the prompts.
let plain = false;

export function setPlainPrompts(on: boolean): void {
  plain = on;
}

export function plainPrompts(): boolean {
  return plain;
}
