// Helpers for widget tests in Chromium: mount an element, wait for Lit, read its shadow DOM.
import type { LitElement } from 'lit';
import type { ModuleReport } from '../../src/kernel/boot/loader.ts';

export async function mount<T extends LitElement>(el: T): Promise<T> {
  document.body.append(el);
  await el.updateComplete;
  return el;
}

/** Waits for pending renders (including ones requested by events). */
export async function settle(el: LitElement): Promise<void> {
  await new Promise((r) => setTimeout(r, 0));
  await el.updateComplete;
}

/**
 * What `read` returns once it equals `expected` (compared as JSON), or what it returned last after
 * `timeoutMs`: for a widget that shows state carried by a rate-limited event (e.g. `python:pool`).
 */
export async function eventually<T>(el: LitElement, read: () => T, expected: T, timeoutMs = 2000): Promise<T> {
  const want = JSON.stringify(expected);
  const end = performance.now() + timeoutMs;
  for (;;) {
    await settle(el);
    const got = read();
    if (JSON.stringify(got) === want || performance.now() > end) return got;
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function $(el: Element, selector: string): HTMLElement | null {
  return el.shadowRoot!.querySelector(selector);
}

export function $$(el: Element, selector: string): HTMLElement[] {
  return [...el.shadowRoot!.querySelectorAll<HTMLElement>(selector)];
}

export function text(el: Element, selector = '.card'): string {
  return ($(el, selector)?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

export function stateOf(el: Element): string | undefined {
  return $(el, '[role=status]')?.getAttribute('aria-label')?.replace('state: ', '');
}

export function report(id: string, over: Partial<ModuleReport> = {}): ModuleReport {
  return { id, state: 'loaded', durationMs: 12, category: 'core', widget: null, blueprint: '0x000012', version: '1.0.0', ...over };
}
