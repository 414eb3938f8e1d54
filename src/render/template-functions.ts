// The functions --template knows, by name, in the order help lists them: template.ts implements
// exactly these (its FUNCTIONS is typed by this list), and `tpa help formats` names them from here
// without loading the template engine.
export const TEMPLATE_FUNCTIONS = [
  'printf',
  'print',
  'println',
  'join',
  'pluck',
  'truncate',
  'tablerow',
  'tablerender',
  'json',
  'len',
  'index',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'and',
  'or',
  'not',
] as const;
