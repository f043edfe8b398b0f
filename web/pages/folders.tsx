// The user's saved folders (/api/workspaces, OpenHands' saved workspaces): kept by the server, so
// every browser offers the same ones. The New page lists them to pick from and saves a folder on ask.
import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { useFetched } from '../ui.js';

interface SavedFolder {
  id: string;
  name: string;
  path: string;
}
interface SavedLists {
  workspaces: SavedFolder[];
}

/** The saved folders (null until read; none from a server without the route), and a reload. */
export function useSavedFolders(): [SavedFolder[] | null, (lists: SavedLists) => void] {
  const [lists, , setLists] = useFetched<SavedLists>('/api/workspaces', { workspaces: [] });
  return [lists?.workspaces ?? null, setLists];
}

/** Saves a folder under its last path segment (OpenHands' GUI: the path is its id too). */
export async function saveFolder(path: string): Promise<SavedLists> {
  const name = path.replace(/\/+$/, '').split('/').pop() || path;
  return api<SavedLists>('/api/workspaces', {
    method: 'POST',
    body: { workspaces: [{ id: path, name, path }] },
  });
}

/** The saved folders as buttons that choose one, each with its own remove button. */
export function SavedFolderList(props: {
  folders: SavedFolder[];
  onChoose: (path: string) => void;
  onRemoved: (path: string) => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const remove = async (path: string) => {
    try {
      await api(`/api/workspaces?path=${encodeURIComponent(path)}`, { method: 'DELETE' });
      props.onRemoved(path);
    } catch (e) {
      setError(errorText(e));
    }
  };
  if (props.folders.length === 0) return null;
  return (
    <nav aria-label="Saved folders" class="row wrap">
      <span class="muted">Saved:</span>
      {props.folders.map((f) => (
        <span key={f.path} class="row">
          <button type="button" title={f.path} onClick={() => props.onChoose(f.path)}>
            {f.name}
          </button>
          <button type="button" class="danger" aria-label={`Forget ${f.name}`} onClick={() => remove(f.path)}>
            ×
          </button>
        </span>
      ))}
      {error && <span class="error">{error}</span>}
    </nav>
  );
}
