// The closing view, one more step after the last hop: what this run shows (bundle.closing, from
// flow/views/closing.py; null for a part of a long trace): a notice, then its sections in two columns on a wide
// screen (the questions and the roles, then the cost and the choice), a section's share drawn as a bar.

import { h } from './dom.mjs';

export class ClosingView {
  constructor() {
    this.el = h('div', { class: 'fv-closing', 'aria-live': 'polite' });
  }

  paint(closing, note) {
    // `closing`: the bundle's closing in one language; `note`: the sample's note, held back to here when it tells
    // what the questions ask.
    const parts = [];
    if (note) parts.push(h('p', { class: 'fv-closing-note', text: note }));
    if (closing.notice) parts.push(h('p', { class: 'fv-closing-notice', text: closing.notice }));
    const columns = [h('div', { class: 'fv-closing-col' }), h('div', { class: 'fv-closing-col' })];
    closing.sections.forEach((s, k) => {
      const section = h('section', { class: `fv-closing-section fv-closing-${s.key}` }, h('h3', { text: s.heading }));
      if (typeof s.bar === 'number') {
        const pct = `${Math.round(s.bar * 100)}%`;
        const fill = h('span', { class: 'fv-closing-fill' });
        fill.style.width = pct;
        section.append(h('div', { class: 'fv-closing-bar', role: 'img', 'aria-label': pct }, fill, h('b', { text: pct })));
      }
      const list = h('ul', {});
      for (const item of s.items) {
        list.append(h('li', {}, item.label ? h('b', { class: 'fv-closing-label', text: item.label }) : null, item.text));
      }
      section.append(list);
      columns[k < closing.sections.length / 2 ? 0 : 1].append(section);
    });
    parts.push(h('div', { class: 'fv-closing-cols' }, ...columns));
    this.el.replaceChildren(...parts);
    this.el.scrollTop = 0;
  }
}
