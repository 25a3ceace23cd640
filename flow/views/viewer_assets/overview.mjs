// A long trace's overview under the diagram: up to OVERVIEW_SLICES slices of the hops, each in the colour of the
// phase most of its hops are in, the current one marked; a click goes to a slice's first hop.

import { h } from './dom.mjs';

const OVERVIEW_SLICES = 60;
const LONG_ROWS = 40; // a trace with more arrows than this gets the overview
const NO_PHASE = '#eeeeee';

export function overviewSlices(hops, slices = OVERVIEW_SLICES) {
  // [{from, to, phase}]: consecutive runs of hop indexes, `phase` the one most of them are in (a hop with none
  // counts as in the phase before it; null when no hop so far had one).
  const n = hops.length;
  const k = Math.min(slices, n);
  const out = [];
  let phase = null;
  for (let s = 0; s < k; s++) {
    const from = Math.floor((s * n) / k);
    const to = Math.max(from, Math.floor(((s + 1) * n) / k) - 1);
    const counts = new Map();
    for (let i = from; i <= to; i++) { phase = hops[i].phase || phase; counts.set(phase, (counts.get(phase) || 0) + 1); }
    let major = null;
    for (const [p, c] of counts) if (major === null || c > counts.get(major)) major = p;
    out.push({ from, to, phase: major });
  }
  return out;
}

export class Overview {
  constructor({ jump }) {
    this.jump = jump;
    this.el = h('div', { class: 'fv-overview' });
    this.caption = h('div', { class: 'fv-overview-caption' });
    this.slices = [];
  }

  draw(bundle) {
    // True when the trace is long enough to have an overview.
    const long = bundle.rows.length > LONG_ROWS;
    this.el.replaceChildren();
    this.slices = [];
    if (!long) return false;
    for (const { from, to, phase } of overviewSlices(bundle.hops)) {
      const cell = h('button', { class: 'fv-slice', type: 'button', title: `${from + 1}–${to + 1}`, onclick: () => this.jump(from) });
      cell.style.background = phase ? bundle.phases[phase].color : NO_PHASE;
      this.slices.push({ from, to, cell });
      this.el.append(cell);
    }
    return true;
  }

  paint(i) {
    for (const s of this.slices) s.cell.classList.toggle('fv-here', s.from <= i && i <= s.to);
  }
}
