// What file_editor shows of a file's text: `cat -n` lines, clipped as OpenHands' file editor clips
// its output (the head, at MAX_VIEW_CHARS, then a notice), so what a view shows of a big file stays
// small: a 10 MB file viewed whole made a 51M-character observation, a 61 MB event. (An edit's
// observation still carries the file's old and new text whole, OpenHands' members.)

/** OpenHands' file editor's limit (MAX_RESPONSE_LEN_CHAR). */
const MAX_VIEW_CHARS = 16_000;

const FILE_CLIPPED =
  '<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you. View other parts with `view_range`, after finding the line numbers of what you are looking for with `grep -n`.</NOTE>';

/** `cat -n` of the text, numbering from `start`. */
function numbered(text: string, start = 1): string {
  return text
    .split('\n')
    .map((line, i) => `${String(i + start).padStart(6)}\t${line}`)
    .join('\n');
}

/**
 * `cat -n` of the text, clipped at MAX_VIEW_CHARS with FILE_CLIPPED. Only the head that can be shown
 * is numbered: numbering adds characters, so a text longer than the limit always comes out clipped.
 */
export function numberedHead(text: string, start = 1): string {
  const shown = numbered(text.slice(0, MAX_VIEW_CHARS), start);
  return shown.length <= MAX_VIEW_CHARS ? shown : `${shown.slice(0, MAX_VIEW_CHARS)}\n${FILE_CLIPPED}`;
}
