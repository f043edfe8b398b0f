// Text as people read it: Markdown (sanitized HTML), terminal output with its ANSI colours, and
// unified diffs.
import Anser from 'anser';
import { createTwoFilesPatch } from 'diff';
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import './ansi.css';
import type { TextPart } from '../types.js';

/** The text of content parts (TextContent; images are not shown). */
export function textOf(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return (parts as TextPart[])
    .filter((p) => p?.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');
}

// Rendered HTML by source text: a live conversation re-renders its whole timeline on each event.
const rendered = new Map<string, string>();
const CACHE_ENTRIES = 500;

function markdownHtml(text: string): string {
  let html = rendered.get(text);
  if (html === undefined) {
    html = DOMPurify.sanitize(marked.parse(text, { async: false, gfm: true, breaks: true }));
    if (rendered.size >= CACHE_ENTRIES) rendered.delete(rendered.keys().next().value as string);
    rendered.set(text, html);
  }
  return html;
}

/** Markdown as HTML, sanitized by DOMPurify (the text comes from the LLM and tools). */
export function Markdown(props: { text: string }) {
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: markdownHtml(props.text) }} />;
}

/** Terminal output with its colours: anser's spans, by class for the 16 colours, inline for the rest. */
export function Ansi(props: { text: string }) {
  const spans = Anser.ansiToJson(props.text, { use_classes: true, remove_empty: true });
  return (
    <pre class="terminal">
      {spans.map((s, i) => {
        const classes = [
          s.fg && !s.fg.includes(',') ? `${s.fg}-fg` : '',
          s.bg && !s.bg.includes(',') ? `${s.bg}-bg` : '',
          ...(s.decorations ?? []).map((d) => `ansi-${d}`),
        ].filter(Boolean);
        const style: Record<string, string> = {};
        if (s.fg?.includes(',')) style.color = `rgb(${s.fg})`;
        if (s.bg?.includes(',')) style.backgroundColor = `rgb(${s.bg})`;
        return classes.length === 0 && !style.color && !style.backgroundColor ? (
          s.content
        ) : (
          <span key={i} class={classes.join(' ')} style={style}>
            {s.content}
          </span>
        );
      })}
    </pre>
  );
}

/** A unified diff of a file's change, coloured by line; `to`: its new name when it moved. */
export function Diff(props: { path: string; to?: string; before: string; after: string }) {
  const patch = createTwoFilesPatch(props.path, props.to ?? props.path, props.before, props.after, '', '', {
    context: 3,
  });
  const lines = patch.split('\n').filter((l) => !l.startsWith('===') && !l.startsWith('Index:') && l !== '');
  return (
    <pre class="diff">
      {lines.map((line, i) => {
        const cls = line.startsWith('@@')
          ? 'hunk'
          : line.startsWith('+++') || line.startsWith('---')
            ? 'file'
            : line.startsWith('+')
              ? 'add'
              : line.startsWith('-')
                ? 'del'
                : '';
        return (
          <span key={i} class={cls}>
            {line}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}
