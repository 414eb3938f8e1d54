// A command line for a person to copy into a POSIX shell (sh, bash, zsh): the suggested commands
// that tpa prints ("next page: …", "continue with: …") are built as argv words and quoted here, in
// one place, so that a value with a space, a quote or a `$` pastes back as the same word.

/** Words a POSIX shell reads as they are: no quoting, globbing, expansion or word splitting. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argv word as a POSIX shell must see it: as it is when plain, else in single quotes. */
export function shellQuote(word: string): string {
  if (PLAIN.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
