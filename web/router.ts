// Client routes on real paths (/ui/...), served the same page by the server; links change the path
// with the History API, so back and forward work and a reload opens the same view.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { name: 'conversations' }
  | { name: 'new'; parent: string | null }
  | { name: 'settings' }
  | { name: 'sandboxes' }
  | { name: 'conversation'; id: string }
  | { name: 'oauth-callback' }
  | { name: 'missing' };

/** The view a location shows: its path, and for a new sub-conversation its `?parent=`. */
const ID = /^[0-9a-fA-F-]{32,36}$/;

export function parseRoute(path: string, search = ''): Route {
  if (path === '/' || path === '/ui' || path === '/ui/') return { name: 'conversations' };
  if (path === '/ui/new') {
    // Only a conversation id: the page reads /api/conversations/{parent} with the key.
    const parent = new URLSearchParams(search).get('parent');
    return { name: 'new', parent: parent && ID.test(parent) ? parent : null };
  }
  if (path === '/ui/settings') return { name: 'settings' };
  if (path === '/ui/sandboxes') return { name: 'sandboxes' };
  // Where an MCP server's authorization server sends the browser back (pages/oauth-callback.tsx).
  if (path === '/ui/oauth/callback') return { name: 'oauth-callback' };
  const conversation = /^\/ui\/conversations\/([0-9a-fA-F-]{32,36})$/.exec(path);
  if (conversation?.[1]) return { name: 'conversation', id: conversation[1] };
  return { name: 'missing' };
}

const listeners = new Set<() => void>();

const here = () => location.pathname + location.search;

export function navigate(path: string): void {
  if (path === here()) return;
  history.pushState(null, '', path);
  for (const l of listeners) l();
  window.scrollTo(0, 0);
}

export function useRoute(): Route {
  const [path, setPath] = useState(here());
  useEffect(() => {
    const update = () => setPath(here());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  const url = new URL(path, location.origin);
  return parseRoute(url.pathname, url.search);
}

/** A link that navigates in the page (a plain click) or opens normally (modifier keys, middle click). */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
    return;
  const href = (event.currentTarget as HTMLAnchorElement).getAttribute('href');
  if (!href?.startsWith('/')) return;
  event.preventDefault();
  navigate(href);
}
