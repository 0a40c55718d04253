/**
 * What the pipeline commands print goes into a CI log, and much of it comes from elsewhere: run task
 * messages, outcomes, URLs, error details. CI runners read their logs for commands, so a task service could
 * otherwise steer the job that prints its verdict:
 * - GitHub Actions runs a line that starts with `::` after leading white space (`::add-mask::`,
 *   `::stop-commands::`, `::error::`), and its older `##[command]` form anywhere in a line;
 * - Azure Pipelines runs `##vso[…]` anywhere in a line, TeamCity `##teamcity[…]`;
 * - ANSI escapes recolour, erase or rewrite what the log shows, and GitLab's collapsible sections are
 *   `ESC[0Ksection_start:` sequences.
 * Every line is made inert here while staying readable: escape sequences are dropped (the text remains),
 * other control and direction-override characters become U+FFFD, a leading `::` becomes `: :`, and `##x[`
 * becomes `##x [`.
 */

// CSI (ESC [ … final), OSC (ESC ] … BEL or ST), the other two-byte escapes, and their 8-bit C1 forms.
const ESCAPE_SEQUENCES =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[PX^_][^\u001b\u009c]*(?:\u001b\\|\u009c)?|\u001b[@-Z\\-_]|\u001b[ -/]*[0-~]?/g;

// What is left of C0 and C1 (but tab), DEL, and the characters that reorder or hide text: bidirectional
// overrides and isolates, line and paragraph separators.
const UNSAFE_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/g;

const RUNNER_COMMAND_LINE = /^(\s*):(?=:)/;
const RUNNER_COMMAND_ANYWHERE = /##(\w*)\[/g;

/** One line (or several, split on \n and \r) made inert for any CI log. */
export function ciSafeText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map(ciSafeLine)
    .join('\n');
}

function ciSafeLine(line: string): string {
  return line
    .replace(ESCAPE_SEQUENCES, '')
    .replace(UNSAFE_CHARACTERS, '\uFFFD')
    .replace(RUNNER_COMMAND_LINE, '$1: ')
    .replace(RUNNER_COMMAND_ANYWHERE, '##$1 [');
}
