/**
 * The live sessions of `armature mcp --http`, bounded in number and in time: a session with no
 * request in flight for `idleMs` is closed (its MCP server, its bus subscriptions, and through
 * `session:ended` its Python runtime), because clients often leave without `DELETE` (the SDK's own
 * `close()` sends none); and at most `max` sessions live at once.
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** One live session. */
export interface HttpSession {
  transport: StreamableHTTPServerTransport;
  /** Requests of this session still being answered (an open SSE stream counts). */
  inFlight: number;
  /** Closes the MCP server of the session (idempotent). */
  close(): Promise<void>;
  /** Fires `idleMs` after the last request ended. */
  timer?: ReturnType<typeof setTimeout>;
}

/** Options of {@link SessionTable}. */
export interface SessionTableOptions {
  /** A session idle this long is closed, in ms. */
  idleMs: number;
  /** Most sessions at once. */
  max: number;
}

/** Sessions by id, with their idle clocks. */
export class SessionTable {
  private readonly sessions = new Map<string, HttpSession>();
  /** Sessions being set up (their initialize under way): they count against the limit. */
  private starting = 0;

  constructor(private readonly o: SessionTableOptions) {}

  /** Live sessions. */
  get size(): number {
    return this.sessions.size;
  }

  get(id: string): HttpSession | undefined {
    return this.sessions.get(id);
  }

  /** Reserves room for one more session; false when the table is full. Pair with {@link release}. */
  reserve(): boolean {
    if (this.sessions.size + this.starting >= this.o.max) return false;
    this.starting++;
    return true;
  }

  /** Gives back a reservation (the session was added, or its initialize failed). */
  release(): void {
    this.starting--;
  }

  /** Adds a session whose initialize succeeded; its idle clock starts when its first request ends. */
  add(id: string, session: HttpSession): void {
    this.sessions.set(id, session);
  }

  /** A request of `session` starts: it is not idle while one is in flight (its clock may fire meanwhile: it finds it busy). */
  begin(session: HttpSession): void {
    session.inFlight++;
  }

  /** A request of `session` ended: when none is left, its idle clock starts again. */
  end(id: string, session: HttpSession): void {
    if (--session.inFlight > 0 || this.sessions.get(id) !== session) return;
    // refresh() re-arms the same timer, fired or not: no new timer per request.
    if (session.timer) session.timer.refresh();
    else session.timer = setTimeout(() => void this.expire(id, session), this.o.idleMs).unref();
  }

  /** Forgets `id` (its transport closed). */
  delete(id: string): void {
    const s = this.sessions.get(id);
    if (s?.timer) clearTimeout(s.timer);
    this.sessions.delete(id);
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    for (const s of all) if (s.timer) clearTimeout(s.timer);
    this.sessions.clear();
    await Promise.all(all.map((s) => s.transport.close().catch(() => undefined)));
  }

  private async expire(id: string, session: HttpSession): Promise<void> {
    if (session.inFlight > 0 || this.sessions.get(id) !== session) return;
    this.sessions.delete(id);
    // Closing the transport closes the MCP server (its onclose), which ends the session.
    await session.transport.close().catch(() => undefined);
    await session.close();
  }
}
