/**
 * How the dashboard page learns what it shows: the server writes
 * `<meta name="armature-mode" content="attached">` (a view of the Node system the server booted:
 * `remoteView`) or `content="page"` (the page boots its own: `localView`) into the page it serves.
 */

/** The name of the page's mode meta tag. */
export const MODE_META = 'armature-mode';

/** What the page shows: the server's Node system, or one it boots in the tab. */
export type PageMode = 'attached' | 'page';
