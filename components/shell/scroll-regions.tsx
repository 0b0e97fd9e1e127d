'use client';
import { useEffect } from 'react';

/**
 * Tables and lists that scroll inside their own box (every table on a narrow
 * screen, long event lists) must be reachable by keyboard, or their hidden part
 * is out of reach without a mouse (axe: scrollable-region-focusable). Every such
 * box in the main area becomes a named tab stop while it scrolls, and stops being
 * one when it no longer does — by construction, not per table. An element with a
 * tabindex of its own is left as its component made it.
 */
const SCROLLERS = '.table, .table-wrap, .events, .lvalue';
const MARK = 'data-scroll-region';

function regionName(el: HTMLElement): string {
  const labelled = el.closest('[aria-label]:not([data-scroll-region])')?.getAttribute('aria-label');
  const testName = el.getAttribute('data-testid')?.replace(/-/g, ' ');
  return labelled ? `${labelled} (scrolls)` : testName ? `${testName} (scrolls)` : 'Scrollable region';
}

function mark(root: HTMLElement) {
  for (const el of root.querySelectorAll<HTMLElement>(SCROLLERS)) {
    const scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
    const ours = el.hasAttribute(MARK);
    if (scrolls && !ours && !el.hasAttribute('tabindex')) {
      const named = !el.hasAttribute('aria-label');
      // A name needs a role that takes one: a table or list has its own, a plain box becomes a region.
      const region = !el.hasAttribute('role') && (el.tagName === 'DIV' || el.tagName === 'PRE');
      el.setAttribute(MARK, `${named ? 'named' : ''} ${region ? 'region' : ''}`);
      el.tabIndex = 0;
      if (named) el.setAttribute('aria-label', regionName(el));
      if (region) el.setAttribute('role', 'region');
    } else if (!scrolls && ours) {
      const added = el.getAttribute(MARK) ?? '';
      if (added.includes('named')) el.removeAttribute('aria-label');
      if (added.includes('region')) el.removeAttribute('role');
      el.removeAttribute(MARK);
      el.removeAttribute('tabindex');
    }
  }
}

export function ScrollRegions({ rootId }: { rootId: string }) {
  useEffect(() => {
    const root = document.getElementById(rootId);
    if (!root) return;
    let frame = 0;
    const schedule = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        mark(root);
      });
    };
    schedule();
    // Content arrives after the first paint (queries), and widths change with the window.
    const mutations = new MutationObserver(schedule);
    mutations.observe(root, { childList: true, subtree: true });
    const sizes = new ResizeObserver(schedule);
    sizes.observe(root);
    return () => {
      cancelAnimationFrame(frame);
      mutations.disconnect();
      sizes.disconnect();
    };
  }, [rootId]);
  return null;
}
