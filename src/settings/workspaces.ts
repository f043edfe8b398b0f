// A user's saved workspaces (OpenHands' /api/workspaces): the folders a client's picker offers and
// the parent folders it looks in for more, the same lists in every browser the user opens. They are a
// document of their own in the settings store (`<user>:workspaces`), beside the settings: the settings
// document is read at every conversation start, which needs none of this.
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import type { SettingsStore } from '../store/index.js';

/** Most saved workspaces, and most parents, a user keeps (each entry is up to ~8 KB). */
export const MAX_SAVED_WORKSPACES = 500;

const pathText = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });

/** OpenHands' WorkspaceParentItem: `id` is the client's (its GUI sends the path), `path` is the key. */
export const WorkspaceParentItem = Type.Object(
  {
    id: pathText("The client's id for it (OpenHands' GUI uses the path)"),
    name: Type.String({ minLength: 1, maxLength: 256 }),
    path: pathText('The folder (entries are told apart by it)'),
  },
  { title: 'WorkspaceParentItem' },
);
export type WorkspaceParentItem = Static<typeof WorkspaceParentItem>;

/** OpenHands' WorkspaceItem, as it answers it (`parentPath`, left out when none). */
export const WorkspaceItem = Type.Object(
  {
    ...WorkspaceParentItem.properties,
    parentPath: Type.Optional(Type.String({ maxLength: 4096, description: 'The parent it was found in' })),
  },
  { title: 'WorkspaceItem' },
);
export type WorkspaceItem = Static<typeof WorkspaceItem>;

/** A workspace as a client sends it: `parentPath` or its snake_case name (OpenHands takes both). */
const WorkspaceItemInput = Type.Object({
  ...WorkspaceItem.properties,
  parent_path: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
});

export const AddWorkspacesRequest = Type.Object({
  workspaces: Type.Array(WorkspaceItemInput, { maxItems: MAX_SAVED_WORKSPACES }),
});
export type AddWorkspacesRequest = Static<typeof AddWorkspacesRequest>;

export const AddWorkspaceParentsRequest = Type.Object({
  parents: Type.Array(WorkspaceParentItem, { maxItems: MAX_SAVED_WORKSPACES }),
});
export type AddWorkspaceParentsRequest = Static<typeof AddWorkspaceParentsRequest>;

/** GET /api/workspaces and what each addition answers: both lists, oldest first. */
export const WorkspacesList = Type.Object(
  {
    workspaces: Type.Array(WorkspaceItem),
    workspaceParents: Type.Array(WorkspaceParentItem),
  },
  { title: 'WorkspacesListResponse' },
);
export type WorkspacesList = Static<typeof WorkspacesList>;

/** 409: an addition would keep more than MAX_SAVED_WORKSPACES in one list. */
export class TooManyWorkspacesError extends Error {
  override name = 'TooManyWorkspacesError';
}

const StoredWorkspaces = Type.Object({
  workspaces: Type.Array(WorkspaceItem, { default: [] }),
  workspaceParents: Type.Array(WorkspaceParentItem, { default: [] }),
});

type ListName = keyof WorkspacesList;

export class SavedWorkspaces {
  constructor(private readonly store: SettingsStore) {}

  async list(userId: string): Promise<WorkspacesList> {
    return this.read(userId);
  }

  /** Appends the workspaces whose path is not saved yet (the first of a path wins). */
  add(userId: string, request: AddWorkspacesRequest): Promise<WorkspacesList> {
    // Only the known members are kept (a client's others are dropped, as OpenHands drops them).
    const items = request.workspaces.map(({ id, name, path, parentPath, parent_path }): WorkspaceItem => {
      const parent = parentPath ?? parent_path;
      return parent ? { id, name, path, parentPath: parent } : { id, name, path };
    });
    return this.update(userId, (lists) => appended(lists, 'workspaces', items));
  }

  addParents(userId: string, request: AddWorkspaceParentsRequest): Promise<WorkspacesList> {
    const items = request.parents.map(({ id, name, path }) => ({ id, name, path }));
    return this.update(userId, (lists) => appended(lists, 'workspaceParents', items));
  }

  /** Removes the workspace saved with this path; false when none is. */
  remove(userId: string, path: string): Promise<boolean> {
    return this.removeFrom(userId, 'workspaces', path);
  }

  removeParent(userId: string, path: string): Promise<boolean> {
    return this.removeFrom(userId, 'workspaceParents', path);
  }

  private async removeFrom(userId: string, list: ListName, path: string): Promise<boolean> {
    let removed = false;
    await this.update(userId, (lists) => {
      const kept = lists[list].filter((item) => item.path !== path);
      removed = kept.length < lists[list].length;
      return removed ? { ...lists, [list]: kept } : lists;
    });
    return removed;
  }

  /** A read-modify-write in the user's turn (the settings' turn: one per user, across replicas). */
  private update(userId: string, change: (lists: WorkspacesList) => WorkspacesList): Promise<WorkspacesList> {
    return this.store.exclusive(userId, async () => {
      const lists = await this.read(userId);
      const next = change(lists);
      if (next !== lists) await this.store.put(documentOf(userId), JSON.stringify(next));
      return next;
    });
  }

  private async read(userId: string): Promise<WorkspacesList> {
    const text = await this.store.get(documentOf(userId));
    // Projected on today's members with their defaults, as the settings are.
    return Value.Default(
      StoredWorkspaces,
      Value.Clean(StoredWorkspaces, text ? JSON.parse(text) : {}),
    ) as WorkspacesList;
  }
}

/** The store key of a user's workspaces: user ids ('local', 'key-…') hold no colon. */
const documentOf = (userId: string) => `${userId}:workspaces`;

function appended<L extends ListName>(
  lists: WorkspacesList,
  list: L,
  items: WorkspacesList[L],
): WorkspacesList {
  const seen = new Set(lists[list].map((item) => item.path));
  const fresh = items.filter((item) => !seen.has(item.path) && seen.add(item.path));
  if (fresh.length === 0) return lists;
  if (lists[list].length + fresh.length > MAX_SAVED_WORKSPACES) {
    const what = list === 'workspaces' ? 'workspaces' : 'workspace parents';
    throw new TooManyWorkspacesError(`At most ${MAX_SAVED_WORKSPACES} saved ${what}: remove some first`);
  }
  return { ...lists, [list]: [...lists[list], ...fresh] };
}
