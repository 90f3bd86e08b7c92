/**
 * `resources/subscribe`: a client that subscribed to a resource hears
 * `notifications/resources/updated` when it changes — a workspace file written or deleted (the
 * bus's `workspace:written` / `workspace:deleted`; a file not there yet may be subscribed to, and
 * its creation is an update), a skill's SKILL.md when its tools change. Updates of one resource
 * within 50 ms are sent once.
 */
import { ErrorCode, McpError, SubscribeRequestParamsSchema, UnsubscribeRequestParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Disposable } from '../kernel/lifecycle.ts';
import { quote } from '../kernel/bounded.ts';
import { onRequest } from './requests.ts';
import { SKILLS, WORKSPACE, workspaceUri } from './resources.ts';
import type { McpSession } from './session.ts';

/** Updates of one resource closer together than this are one notification, in ms. */
const DEBOUNCE_MS = 50;

/** Serves subscriptions on `s.server`; the disposable ends them (the session closed). */
export function serveSubscriptions(s: McpSession): Disposable {
  const subscribed = new Set<string>();
  /** The last SKILL.md sent of each subscribed skill, to tell whether a tool change changed it. */
  const skills = new Map<string, string>();
  const pending = new Map<string, ReturnType<typeof setTimeout>>();
  const skillText = (uri: string) => {
    try {
      return s.python?.readSkill(decodeURIComponent(uri.slice(SKILLS.length)));
    } catch {
      return undefined;
    }
  };
  const updated = (uri: string) => {
    if (!subscribed.has(uri) || pending.has(uri)) return;
    pending.set(
      uri,
      setTimeout(() => {
        pending.delete(uri);
        if (subscribed.has(uri)) void s.server.sendResourceUpdated({ uri }).catch(() => undefined);
      }, DEBOUNCE_MS),
    );
  };
  const check = (uri: string) => {
    const ok = (uri.startsWith(WORKSPACE) && s.workspace) || (uri.startsWith(SKILLS) && s.python);
    if (!ok) throw new McpError(ErrorCode.InvalidParams, `cannot subscribe to ${quote(uri, 200)}: subscriptions are for ${[s.workspace && `${WORKSPACE}<path>`, s.python && `${SKILLS}<namespace>`].filter(Boolean).join(' and ') || 'nothing on this persona'}`, { uri });
  };
  const uriField = { uri: 'the URI of the resource, as resources/list gives it' };
  onRequest(s.server, 'resources/subscribe', SubscribeRequestParamsSchema, uriField, ({ uri }) => {
    check(uri);
    subscribed.add(uri);
    if (uri.startsWith(SKILLS)) skills.set(uri, skillText(uri) ?? '');
    return {};
  });
  onRequest(s.server, 'resources/unsubscribe', UnsubscribeRequestParamsSchema, uriField, ({ uri }) => {
    subscribed.delete(uri);
    skills.delete(uri);
    return {};
  });
  const file = ({ path }: { path: string }) => updated(workspaceUri(path));
  const toolsChanged = () => {
    for (const [uri, before] of skills) {
      const now = skillText(uri) ?? '';
      if (now === before) continue;
      skills.set(uri, now);
      updated(uri);
    }
  };
  const subs = [
    s.sys.bus.on('workspace:written', file),
    s.sys.bus.on('workspace:deleted', file),
    s.sys.bus.on('tool:registered', toolsChanged),
    s.sys.bus.on('tool:unregistered', toolsChanged),
  ];
  return {
    dispose() {
      for (const sub of subs) sub.dispose();
      for (const t of pending.values()) clearTimeout(t);
      pending.clear();
      subscribed.clear();
    },
  };
}
