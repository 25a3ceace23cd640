// The sequence diagram: the bundle's SVG, drawn once per trace and language with no arrow highlighted; a step
// changes the classes of the arrows between the old and the new position (earlier, current, later; 'ask' for the
// arrow a waiting question is about: drawn as the next one, its label veiled) and scrolls the current one into
// view. Arrows carry ids `hop-N` / `hop-A-B` (bundle.rows), their labels `label-hop-…`.

import { h, fmt } from './dom.mjs';
import { rowChanges, scrollTarget } from './layout.mjs';

const MAX_SCALE = 1.25; // the most the drawing is enlarged to fill its box
const PRESENTER_MAX_SCALE = 1.5;

function setRow(row, state) {
  const els = row.label ? [...row.parts, row.label] : row.parts;
  for (const g of els) {
    g.classList.toggle('fv-later', state === 'later' || state === 'ask');
    g.classList.toggle('fv-ask', state === 'ask');
    g.classList.toggle('fv-current', state === 'current');
  }
}

export class Diagram {
  constructor() {
    this.svgBox = h('div', { class: 'fv-svg' });
    // The lifelines' names, kept at the top of the box once the drawing's own have scrolled away.
    this.heads = h('div', { class: 'fv-heads', 'aria-hidden': 'true' });
    this.box = h('div', { class: 'fv-diagram' }, this.heads, this.svgBox);
    this.headsBottom = 0;
    this.svg = null;
    this.rows = [];
    this.shownRow = -1;
    this.scale = 0;
    this.scrollTimer = 0;
    // The scroll position as the user (or a smooth scroll) leaves it, without reading layout on each step.
    this.box.addEventListener('scroll', () => {
      this.showHeads(this.box.scrollTop);
      if (this.scrollTimer) return;
      this.scrollTimer = setTimeout(() => { this.scrollTimer = 0; this.scrollY = this.box.scrollTop; this.scrollX = this.box.scrollLeft; }, 120);
    }, { passive: true });
  }

  draw(bundle, L) {
    this.rows = [];
    this.shownRow = -1;
    if (!bundle.svg) {
      this.svgBox.replaceChildren(h('p', { class: 'fv-error', text: fmt(bundle.ui.no_diagram[L], { error: bundle.svg_error || '' }) }));
      this.svg = null;
      return;
    }
    this.svgBox.innerHTML = bundle.svg;
    this.measured = false;
    this.svg = this.svgBox.querySelector('svg');
    const vb = this.svg.viewBox.baseVal;
    this.naturalW = vb && vb.width ? vb.width : 800;
    this.naturalH = vb && vb.height ? vb.height : 600;
    this.svg.removeAttribute('width');
    this.svg.removeAttribute('height');
    const label = this.svg.querySelector('g.node[id^="label-"] text');
    this.labelUnits = (label && parseFloat(label.getAttribute('font-size'))) || 20;
    const byId = new Map(bundle.rows.map((id, r) => [id, r]));
    for (let r = 0; r < bundle.rows.length; r++) this.rows.push({ parts: [], label: null });
    let pending = [];
    // A self-call is drawn as three edges; only the last carries the id, so the first two join it.
    for (const g of this.svg.querySelectorAll('g.edge')) {
      const r = byId.get(g.id);
      if (r === undefined) { pending.push(g); continue; }
      this.rows[r].parts.push(...pending, g);
      pending = [];
    }
    for (const g of this.svg.querySelectorAll('g.node')) {
      if (!g.id.startsWith('label-')) continue;
      const r = byId.get(g.id.slice(6));
      if (r === undefined) continue;
      this.rows[r].label = g;
      g.classList.add('fv-label-node');
      if (bundle.row_styles[r] === 'error') g.classList.add('error');
    }
    // Everything starts as "later"; painting the first position walks forward from there once.
    for (const row of this.rows) setRow(row, 'later');
    this.drawHeads();
  }

  drawHeads() {
    // A copy of the lifelines' head boxes (ids head-*, flow.views.diagram), cut to their row of the drawing.
    const graph = this.svg.querySelector('g.graph');
    const heads = [...this.svg.querySelectorAll('g.node[id^="head-"]')];
    this.heads.replaceChildren();
    this.headsRow = null;
    if (!graph || !heads.length) return;
    const copy = graph.cloneNode(false);
    for (const g of heads) { const c = g.cloneNode(true); c.removeAttribute('id'); c.classList.add('fv-kept-head'); copy.append(c); }
    const m = graph.transform.baseVal.numberOfItems ? graph.transform.baseVal.consolidate().matrix : { e: 0, f: 0 };
    let top = Infinity; let bottom = -Infinity;
    for (const g of heads) { const b = g.getBBox(); top = Math.min(top, b.y + m.f); bottom = Math.max(bottom, b.y + b.height + m.f); }
    const vb = this.svg.viewBox.baseVal;
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', `${vb.x} ${top - 3} ${vb.width} ${bottom - top + 6}`);
    svg.append(copy);
    this.heads.append(svg);
    this.headsRow = { top: top - 3 - vb.y, height: bottom - top + 6 };
  }

  covered() {
    // The px the kept names take at the top of a scrolled box.
    return this.headsRow && this.scale ? this.headsRow.height * this.scale : 0;
  }

  showHeads(scrollTop) {
    const shown = !!this.headsRow && this.scale > 0 && scrollTop > this.headsRow.top * this.scale + 1;
    this.heads.classList.toggle('fv-on', shown);
  }

  paint(to, asking) {
    // The arrow at row `to` is the current one (or the one a question asks about).
    if (!this.rows.length) return;
    for (const [r, state] of rowChanges(this.shownRow, to)) setRow(this.rows[r], state);
    setRow(this.rows[to], asking ? 'ask' : 'current');
    this.shownRow = to;
  }

  chrome() {
    // What the box takes beside the drawing (a border, a scrollbar), measured when the box is shown; null otherwise.
    return this.box.offsetWidth ? this.box.offsetWidth - this.box.clientWidth : null;
  }

  size(presenter, layout) {
    // As wide as the box allows (never wider: a lifeline off screen is a lifeline lost), up to a limit; none in the
    // phone layout, which shows rows instead.
    if (!this.svg || layout === 'phone') { this.scale = 0; return; }
    const scale = Math.min(presenter ? PRESENTER_MAX_SCALE : MAX_SCALE, (this.box.clientWidth - 4) / this.naturalW);
    // Rounded down: a drawing a fraction of a pixel wider than its box would scroll sideways.
    this.svg.style.width = `${Math.floor(this.naturalW * scale)}px`;
    this.svg.style.height = `${Math.floor(this.naturalH * scale)}px`;
    this.scale = scale;
    const heads = this.heads.firstElementChild;
    if (heads && this.headsRow) {
      heads.style.width = this.svg.style.width;
      // Rounded up, so the width sets the copy's scale as it does the drawing's (rounded down, the names were drawn
      // smaller than the drawing's own).
      heads.style.height = `${Math.ceil(this.headsRow.height * scale)}px`;
    }
    // What follow() needs, read here (a resize or a mode change) rather than on every step.
    this.viewH = this.box.clientHeight;
    this.viewW = this.box.clientWidth;
    this.offsetX = Math.max(0, (this.svgBox.clientWidth - this.naturalW * scale) / 2);
    this.scrollY = this.box.scrollTop;
    this.scrollX = this.box.scrollLeft;
    this.showHeads(this.scrollY);
  }

  boxChanged() {
    // The box may have changed size (the hop's text under it is longer or shorter): follow in the new one.
    const height = this.box.clientHeight;
    const width = this.box.clientWidth;
    if (height === this.viewH && width === this.viewW) return;
    this.viewH = height;
    this.viewW = width;
    this.follow(true);
  }

  measure() {
    // Each row's box in drawing units, read once per drawing (getBBox ignores CSS scale and scrolling),
    // so following the current hop never forces a layout of the whole diagram.
    const graph = this.svg.querySelector('g.graph');
    const m = graph && graph.transform.baseVal.numberOfItems ? graph.transform.baseVal.consolidate().matrix : { e: 0, f: 0 };
    const vb = this.svg.viewBox.baseVal;
    for (const row of this.rows) {
      let top = Infinity; let bottom = -Infinity; let left = Infinity; let right = -Infinity;
      for (const g of row.label ? [...row.parts, row.label] : row.parts) {
        const b = g.getBBox();
        top = Math.min(top, b.y); bottom = Math.max(bottom, b.y + b.height);
        left = Math.min(left, b.x); right = Math.max(right, b.x + b.width);
      }
      row.box = { top: top + m.f - vb.y, bottom: bottom + m.f - vb.y, left: left + m.e - vb.x, right: right + m.e - vb.x };
    }
    this.measured = true;
  }

  follow(instant) {
    // Keep the current arrow and its label fully in view, with the arrow before it above for context.
    if (!this.svg || this.shownRow < 0 || !this.scale) return;
    if (!this.measured) this.measure();
    const row = this.rows[this.shownRow];
    if (!row || !row.box || !Number.isFinite(row.box.top)) return;
    const prev = this.rows[this.shownRow - 1];
    const { x, y } = scrollTarget({
      row: row.box, prev: prev && prev.box, scale: this.scale, scrollX: this.scrollX, scrollY: this.scrollY,
      viewW: this.viewW, viewH: this.viewH, offsetX: this.offsetX, naturalW: this.naturalW, naturalH: this.naturalH,
      covered: this.covered(),
    });
    if (y === this.scrollY && x === this.scrollX) return;
    const reduce = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    this.scrollY = y;
    this.scrollX = x;
    this.box.scrollTo({ top: y, left: x, behavior: instant || reduce ? 'instant' : 'smooth' });
  }
}
