// The phone layout's picture: the trace as rows, one a diagram row, its number, its lanes (bundle.lanes; the
// provider's, bundle.provider.lanes, marked) drawn small with the arrow between them, who sends to whom and its
// label, in words at a size a phone reads. Drawn only when the phone layout is first needed.

import { h } from './dom.mjs';

export class Lanes {
  // `jump(i)`: a click on a row goes to its first hop.
  constructor({ jump }) {
    this.jump = jump;
    this.el = h('ol', { class: 'fv-lanes' });
    this.items = null;
    this.shown = -1;
  }

  get drawn() {
    return this.items !== null;
  }

  forget() {
    this.items = null;
  }

  draw(bundle, L) {
    const lanes = bundle.lanes || [];
    const hops = bundle.hops;
    const n = Math.max(1, lanes.length);
    const first = new Map();
    hops.forEach((hop, i) => { if (!first.has(hop.row)) first.set(hop.row, i); });
    const pos = (k) => `${((k + 0.5) * 100) / n}%`;
    const provider = (bundle.provider && bundle.provider.lanes) || [];
    this.items = [];
    const items = [];
    for (let r = 0; r < bundle.rows.length; r++) {
      const i = first.get(r);
      const hop = hops[i];
      if (!hop) continue;
      const [a, b] = hop.lanes || [0, 0];
      const track = h('span', { class: 'fv-lane-track', 'aria-hidden': 'true' });
      for (let k = 0; k < n; k++) track.append(h('i', { style: `left: ${pos(k)}`, class: provider.includes(k) ? 'fv-lane-provider' : '' }));
      const arrow = h('b', { class: (a === b ? 'fv-lane-self' : a < b ? 'fv-lane-right' : 'fv-lane-left') + (hop.reported ? ' fv-lane-reported' : '') });
      arrow.style.left = pos(Math.min(a, b));
      arrow.style.width = `${(Math.abs(a - b) * 100) / n}%`;
      track.append(arrow);
      const ends = hop.from[L] === hop.to[L] ? hop.from[L] : `${hop.from[L]} → ${hop.to[L]}`;
      const item = h('li', { class: 'fv-lane-row', onclick: () => this.jump(i) },
        h('span', { class: 'fv-lane-num', text: hop.number }), track,
        h('span', { class: 'fv-lane-text' }, h('span', { class: 'fv-lane-ends', text: ends }), h('span', { class: 'fv-li-label', text: hop.label })));
      if (bundle.row_styles[r] === 'error') item.classList.add('fv-lane-error');
      this.items[r] = item;
      items.push(item);
    }
    this.el.replaceChildren(...items);
    this.shown = -1;
  }

  paint(row, asking, phone) {
    // The rows' states, as the diagram's arrows: earlier, the current one (or the one a question asks about), later;
    // only the rows between the old and the new position change. On a phone, the current row in view.
    if (!this.items) return;
    const from = this.shown;
    const low = from < 0 ? 0 : Math.min(from, row);
    const high = from < 0 ? this.items.length - 1 : Math.max(from, row);
    for (let r = low; r <= high; r++) {
      const item = this.items[r];
      if (!item) continue;
      item.classList.toggle('fv-on', r === row);
      item.classList.toggle('fv-after', r > row || (r === row && asking));
    }
    this.shown = row;
    if (!phone || !this.items[row]) return;
    // The current row in view, with a row before it for context.
    const box = this.el;
    const item = this.items[row];
    const top = item.offsetTop - box.offsetTop;
    const before = this.items[row - 1] ? item.offsetTop - this.items[row - 1].offsetTop : 0;
    if (top - before < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - before);
  }
}
