// `agentd conversations` (the list) and `agentd events ID [--follow]` (a conversation's events, or
// followed live over the WebSocket with agentd's exact cursor, across reconnections).
import { ApiError, type Event } from './api.js';
import { connect, type TargetOptions } from './connect.js';
import { describe } from './format.js';
import { Screen } from './screen.js';

interface Info {
  id: string;
  execution_status: string;
  title: string | null;
  updated_at: string;
}

/** Conversations listed at most (the newest first). */
const MAX_LISTED = 1000;

export async function conversations(options: TargetOptions & { json?: boolean }): Promise<void> {
  await withTarget(options, async (api) => {
    const items: Info[] = [];
    let page: string | null = null;
    do {
      const query = `limit=100&sort_order=UPDATED_AT_DESC${page ? `&page_id=${page}` : ''}`;
      const result: { items: Info[]; next_page_id: string | null } = await api.call(
        'GET',
        `/api/conversations/search?${query}`,
      );
      items.push(...result.items);
      page = result.next_page_id;
    } while (page && items.length < MAX_LISTED);
    if (options.json) {
      for (const c of items) process.stdout.write(`${JSON.stringify(c)}\n`);
      return;
    }
    const screen = new Screen();
    if (items.length === 0) return screen.write([{ tone: 'note', text: 'no conversations yet' }]);
    const width = Math.max(6, ...items.map((c) => c.execution_status.length));
    screen.write([
      { tone: 'note', text: `${'ID'.padEnd(36)}  ${'STATUS'.padEnd(width)}  ${'UPDATED'.padEnd(19)}  TITLE` },
      ...items.map((c) => ({
        tone: c.execution_status === 'error' ? ('error' as const) : ('output' as const),
        text: `${c.id}  ${c.execution_status.padEnd(width)}  ${c.updated_at.slice(0, 19).replace('T', ' ')}  ${c.title ?? ''}`,
      })),
    ]);
  });
}

/**
 * The events from the first: without --follow, as many as were stored when it began; with it, then
 * live until Ctrl-C. Human lines, or with --json each stored event as one JSON line.
 */
export async function events(id: string, options: TargetOptions & { follow?: boolean; json?: boolean }) {
  await withTarget(options, async (api) => {
    const stored = await api.call<number>('GET', `/api/conversations/${encodeURIComponent(id)}/events/count`);
    const screen = new Screen();
    let seen = 0;
    await new Promise<void>((resolve, reject) => {
      const follower = api.follow(
        id,
        0,
        ({ seq, event }) => {
          if (seq === null) {
            // full_state: the first frame; with nothing stored there is nothing more to wait for.
            if (!options.follow && stored === 0) follower.stop();
            return;
          }
          show(screen, event, options.json === true);
          if (!options.follow && ++seen >= stored) follower.stop();
        },
        (reason) => process.stderr.write(`agentd: reconnecting (${reason})\n`),
      );
      // Following ends with Ctrl-C, which is how it is meant to end: exit 0.
      if (options.follow) process.once('SIGINT', () => follower.stop());
      follower.done.then(resolve, reject);
    });
  });
}

function show(screen: Screen, event: Event, json: boolean): void {
  if (json) process.stdout.write(`${JSON.stringify(event)}\n`);
  else screen.write(describe(event));
}

/** Runs `work` against the target and closes it; an API error is one line and exit code 1. */
async function withTarget(
  options: TargetOptions,
  work: (api: Awaited<ReturnType<typeof connect>>['api']) => Promise<void>,
): Promise<void> {
  const target = await connect(options);
  let code = 0;
  try {
    await work(target.api);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    process.stderr.write(`agentd: ${error.message}\n`);
    code = 1;
  }
  await target.close();
  process.exit(code);
}
