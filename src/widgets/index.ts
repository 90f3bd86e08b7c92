/**
 * `armature/widgets`: what a dashboard card of your own upgrade is written with — the base class
 * every widget extends, the controller that follows bus events, and Lit's `html`, `css` and
 * `nothing` to render with (the same copy of Lit the dashboard runs). On the dashboard served by
 * `armature start --root DIR` a root's `upgrades/<folder>/widget.js` imports this module by its
 * name; a page of your own bundles it (it needs the `lit` package, an optional peer).
 * See docs/upgrades.md for the widget API and a minimal example.
 *
 * @packageDocumentation
 */
export { html, css, nothing, svg } from 'lit';
export type { TemplateResult } from 'lit';
export { BusController } from './bus-controller.ts';
export { counted, ModuleWidget, widgetStyles } from './module-widget.ts';
export type { WidgetContext, WidgetControl, WidgetState, WidgetStatus } from './module-widget.ts';
