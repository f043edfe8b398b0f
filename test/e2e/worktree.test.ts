// OpenHands' `worktree: true`: a conversation started in a git repository works in a worktree of its
// own (branch openhands/<id>), its changes never in the user's checkout; deleting the conversation
// removes the worktree unless something in it is uncommitted (nothing is lost); its branch stays.
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, newRepo } from '../git/repos.js';
import {
  allEvents,
  info,
  serverAndLlm,
  startConversation,
  terminalStep,
  waitForStatus,
} from '../support/conversation.js';
import { api, tempDir } from '../support/server.js';

const env = serverAndLlm();

const done = { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] };
const hex = (id: string) => id.replaceAll('-', '');
const remove = (id: string) => api(env.server, `/api/conversations/${id}`, { method: 'DELETE' });

describe('worktree: true', () => {
  it("works in the conversation's own worktree and branch; the checkout stays as it was", async () => {
    const repo = newRepo({ 'pkg/notes.txt': 'original\n' });
    const { id, key } = await startConversation(
      env.server,
      env.llm,
      [terminalStep('git rev-parse --abbrev-ref HEAD && echo changed > notes.txt && pwd'), done],
      { workingDir: join(repo, 'pkg'), extra: { worktree: true } },
    );
    await waitForStatus(env.server, id, ['finished']);
    const worktree = join(env.server.dataDir, 'worktrees', hex(id), basename(repo));
    const shown = await info(env.server, id);
    expect(shown.workspace).toMatchObject({ working_dir: join(worktree, 'pkg') });
    const output = JSON.stringify(
      (await allEvents(env.server, id)).filter((e) => e.kind === 'ObservationEvent'),
    );
    expect(output).toContain(`openhands/${id}`);
    expect(readFileSync(join(worktree, 'pkg/notes.txt'), 'utf8')).toBe('changed\n');
    expect(readFileSync(join(repo, 'pkg/notes.txt'), 'utf8')).toBe('original\n');
    // The agent was told where it works.
    const system = JSON.stringify(env.llm.requestsFor(key)[0]?.body.messages);
    expect(system).toContain('This conversation uses a dedicated git worktree');

    // Uncommitted work: deleting the conversation keeps the worktree (and the branch).
    expect((await remove(id)).status).toBe(200);
    expect(existsSync(join(worktree, 'pkg/notes.txt'))).toBe(true);
    expect(git(repo, 'branch', '--list', `openhands/${id}`)).toContain(`openhands/${id}`);
  });

  it('removes a clean worktree with its conversation, keeping the branch', async () => {
    const repo = newRepo({ 'a.txt': 'a\n' });
    const { id } = await startConversation(env.server, env.llm, [done], {
      workingDir: repo,
      extra: { worktree: true },
    });
    await waitForStatus(env.server, id, ['finished']);
    const worktree = join(env.server.dataDir, 'worktrees', hex(id), basename(repo));
    expect(existsSync(join(worktree, 'a.txt'))).toBe(true);
    expect((await remove(id)).status).toBe(200);
    expect(existsSync(worktree)).toBe(false);
    expect(git(repo, 'worktree', 'list')).not.toContain(worktree);
    expect(git(repo, 'branch', '--list', `openhands/${id}`)).toContain(`openhands/${id}`);

    // Started again under the same id, the conversation takes up its branch and what was committed there.
    const worktreeBefore = join(env.server.dataDir, 'worktrees', hex(id), basename(repo));
    git(
      repo,
      'branch',
      '-f',
      `openhands/${id}`,
      git(repo, 'commit-tree', '-m', 'kept', '-p', 'HEAD', 'HEAD^{tree}'),
    );
    const again = await startConversation(env.server, env.llm, [done], {
      workingDir: repo,
      extra: { worktree: true, conversation_id: id },
    });
    expect(again.id).toBe(id);
    await waitForStatus(env.server, id, ['finished']);
    expect(git(worktreeBefore, 'log', '-1', '--format=%s')).toBe('kept');
  });

  it('finds the folder in the worktree through a link in its path', async () => {
    const repo = newRepo({ 'pkg/a.txt': 'a\n' });
    const link = join(tempDir('agentd-link-'), 'repo');
    symlinkSync(repo, link);
    const { id } = await startConversation(env.server, env.llm, [done], {
      workingDir: join(link, 'pkg'),
      extra: { worktree: true },
    });
    const worktree = join(env.server.dataDir, 'worktrees', hex(id), basename(repo));
    expect((await info(env.server, id)).workspace).toMatchObject({ working_dir: join(worktree, 'pkg') });
    await waitForStatus(env.server, id, ['finished']);
  });

  it('outside a repository works in the folder itself', async () => {
    const folder = tempDir('agentd-not-a-repo-');
    const { id } = await startConversation(env.server, env.llm, [done], {
      workingDir: folder,
      extra: { worktree: true },
    });
    expect((await info(env.server, id)).workspace).toMatchObject({ working_dir: folder });
    await waitForStatus(env.server, id, ['finished']);
  });
});
