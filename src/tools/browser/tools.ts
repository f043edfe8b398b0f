// The 14 browser tools (OpenHands' browser_tool_set), all over one BrowserSession per conversation.
// Each answers a BrowserObservation; a failure is an is_error observation the agent can act on.
import type { TObject } from 'typebox';
import * as A from '../../events/index.js';
import { toolDefinition } from '../define.js';
import type { Tool } from '../types.js';
import { BrowserError, type BrowserSession } from './session.js';

const MAX_TEXT = 50_000;

type Result = { text: string; screenshot?: string | null };
type Spec = {
  name: string;
  kind: string;
  action: TObject;
  actionKind: string;
  readOnly: boolean;
  description: string;
  run(session: BrowserSession, action: Record<string, unknown>): Promise<Result | string>;
};

const SPECS: Spec[] = [
  {
    name: 'browser_navigate',
    kind: 'BrowserNavigateTool',
    action: A.BrowserNavigateAction,
    actionKind: 'BrowserNavigateAction',
    readOnly: false,
    description: 'Open a URL in the browser (in a new tab with `new_tab`).',
    run: (s, a) => s.navigate(a.url as string, a.new_tab === true),
  },
  {
    name: 'browser_click',
    kind: 'BrowserClickTool',
    action: A.BrowserClickAction,
    actionKind: 'BrowserClickAction',
    readOnly: false,
    description:
      'Click the element with this index from the last browser_get_state listing (`new_tab` opens a link in a new tab).',
    run: (s, a) => s.click(a.index as number, a.new_tab === true),
  },
  {
    name: 'browser_type',
    kind: 'BrowserTypeTool',
    action: A.BrowserTypeAction,
    actionKind: 'BrowserTypeAction',
    readOnly: false,
    description:
      'Type text into the input element with this index from the last browser_get_state listing (replaces its value).',
    run: (s, a) => s.type(a.index as number, a.text as string),
  },
  {
    name: 'browser_get_state',
    kind: 'BrowserGetStateTool',
    action: A.BrowserGetStateAction,
    actionKind: 'BrowserGetStateAction',
    readOnly: true,
    description:
      'List the page URL, title and its interactive elements with their indexes; `include_screenshot` adds a screenshot.',
    run: (s, a) => s.state(a.include_screenshot === true),
  },
  {
    name: 'browser_get_content',
    kind: 'BrowserGetContentTool',
    action: A.BrowserGetContentAction,
    actionKind: 'BrowserGetContentAction',
    readOnly: true,
    description:
      'The page as markdown (with link targets when `extract_links`); long pages come in parts, continue with `start_from_char`.',
    run: (s, a) => s.content(a.extract_links === true, (a.start_from_char as number | undefined) ?? 0),
  },
  {
    name: 'browser_scroll',
    kind: 'BrowserScrollTool',
    action: A.BrowserScrollAction,
    actionKind: 'BrowserScrollAction',
    readOnly: true,
    description: 'Scroll the page one screen up or down.',
    run: (s, a) => s.scroll((a.direction as 'up' | 'down' | undefined) ?? 'down'),
  },
  {
    name: 'browser_go_back',
    kind: 'BrowserGoBackTool',
    action: A.BrowserGoBackAction,
    actionKind: 'BrowserGoBackAction',
    readOnly: false,
    description: 'Go back to the previous page of the current tab.',
    run: (s) => s.back(),
  },
  {
    name: 'browser_list_tabs',
    kind: 'BrowserListTabsTool',
    action: A.BrowserListTabsAction,
    actionKind: 'BrowserListTabsAction',
    readOnly: true,
    description: 'List the open tabs with their 4-character ids.',
    run: (s) => s.listTabs(),
  },
  {
    name: 'browser_switch_tab',
    kind: 'BrowserSwitchTabTool',
    action: A.BrowserSwitchTabAction,
    actionKind: 'BrowserSwitchTabAction',
    readOnly: false,
    description: 'Make the tab with this id the current one.',
    run: (s, a) => s.switchTab(a.tab_id as string),
  },
  {
    name: 'browser_close_tab',
    kind: 'BrowserCloseTabTool',
    action: A.BrowserCloseTabAction,
    actionKind: 'BrowserCloseTabAction',
    readOnly: false,
    description: 'Close the tab with this id.',
    run: (s, a) => s.closeTab(a.tab_id as string),
  },
  {
    name: 'browser_get_storage',
    kind: 'BrowserGetStorageTool',
    action: A.BrowserGetStorageAction,
    actionKind: 'BrowserGetStorageAction',
    readOnly: true,
    description: "The browser's cookies and local storage, as JSON (`cookies`, `origins`).",
    run: (s) => s.getStorage(),
  },
  {
    name: 'browser_set_storage',
    kind: 'BrowserSetStorageTool',
    action: A.BrowserSetStorageAction,
    actionKind: 'BrowserSetStorageAction',
    readOnly: false,
    description:
      'Restore cookies and local storage from a `storage_state` as returned by browser_get_storage.',
    run: (s, a) =>
      s.setStorage(
        a.storage_state as { cookies?: Record<string, unknown>[]; origins?: Record<string, unknown>[] },
      ),
  },
  {
    name: 'browser_start_recording',
    kind: 'BrowserStartRecordingTool',
    action: A.BrowserStartRecordingAction,
    actionKind: 'BrowserStartRecordingAction',
    readOnly: false,
    description: 'Start recording the current tab as a series of screenshots.',
    run: (s) => s.startRecording(),
  },
  {
    name: 'browser_stop_recording',
    kind: 'BrowserStopRecordingTool',
    action: A.BrowserStopRecordingAction,
    actionKind: 'BrowserStopRecordingAction',
    readOnly: false,
    description: 'Stop the recording and say where its frames are.',
    run: (s) => s.stopRecording(),
  },
];

export const BROWSER_TOOL_NAMES = SPECS.map((s) => s.name);

type Content =
  | { type: 'text'; text: string; cache_prompt: boolean }
  | { type: 'image'; image_urls: string[]; cache_prompt: boolean };

function observation(result: Result | string, isError = false) {
  const r = typeof result === 'string' ? { text: result } : result;
  const text =
    r.text.length > MAX_TEXT
      ? `${r.text.slice(0, MAX_TEXT)}\n[Output cut at ${MAX_TEXT} characters.]`
      : r.text;
  const content: Content[] = [{ type: 'text', text, cache_prompt: false }];
  if (r.screenshot)
    content.push({
      type: 'image',
      image_urls: [`data:image/png;base64,${r.screenshot}`],
      cache_prompt: false,
    });
  return {
    kind: 'BrowserObservation',
    content,
    is_error: isError,
    ...(r.screenshot ? { screenshot_data: r.screenshot } : {}),
  };
}

/** The browser tools named (all 14 for `browser_tool_set`), over one session. */
export function browserTools(names: readonly string[], session: () => BrowserSession): Tool[] {
  const wanted = names.includes('browser_tool_set') ? SPECS : SPECS.filter((s) => names.includes(s.name));
  return wanted.map((spec, i) => ({
    name: spec.name,
    actionKind: spec.actionKind,
    actionSchema: spec.action,
    readOnly: spec.readOnly,
    definition: toolDefinition({
      name: spec.name,
      kind: spec.kind,
      actionKind: spec.actionKind,
      observationKind: 'BrowserObservation',
      readOnly: spec.readOnly,
      openWorld: true,
      description: spec.description,
    }),
    async execute(action: unknown) {
      try {
        return observation(await spec.run(session(), action as Record<string, unknown>));
      } catch (error) {
        if (
          error instanceof BrowserError ||
          (error as Error).name === 'TimeoutError' ||
          /net::|Navigation|Target/.test((error as Error).message)
        ) {
          return observation((error as Error).message, true);
        }
        throw error;
      }
    },
    // One tool closes the shared session for all of them.
    ...(i === 0 ? { close: () => session().close() } : {}),
  }));
}
