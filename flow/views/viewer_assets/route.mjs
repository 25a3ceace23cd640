// The route at a glance: the articles' ten messages (and phase zero) in their four phases, with this app's six
// phases beneath, the current hop's message lit (the grid and the words: route_model.mjs).
//
// A message with no hop in this trace is dim and says why; one the app does differently (direct mode's
// in-process hops, a server that did not report running the tool, the message where a failed run stopped) is
// half-dim with the reason; one the articles tell wrongly (message 3's sender, message 7's tool_call_id) carries
// its correction in its note and in the line below. A wire frame outside the numbered steps belongs to no message:
// nothing is lit and the line below says so. The restaurant captions (a toggle) add a plain-words line.

import { h, fmt } from './dom.mjs';
import { ROW, bandTarget, cellNote, litFor, messageColumn, messagePairs, pairsText, spanColumns } from './route_model.mjs';

export class RouteStrip {
  // `jump(i)`: a click on a message or a band goes to hop i; `toggled(on)`: the captions toggle was pressed.
  constructor({ jump, toggled }) {
    this.jump = jump;
    this.captions = false;
    this.el = h('div', { class: 'fv-routebox' });
    this.grid = h('div', { class: 'fv-rgrid' });
    this.detail = h('div', { class: 'fv-rdetail' });
    this.caption = h('div', { class: 'fv-rcaption' });
    this.captionBtn = h('button', { class: 'fv-toggle fv-captions-toggle', type: 'button', 'aria-pressed': 'false', onclick: () => toggled(!this.captions) });
    this.tools = h('div', { class: 'fv-rtools' }, this.captionBtn);
    // The whole note of a message an article tells wrongly: which article, what it says, what is true.
    this.note = h('div', { class: 'fv-rnote-pop', role: 'dialog', hidden: '' });
    this.el.append(this.grid, h('div', { class: 'fv-rline' }, h('div', { class: 'fv-rtexts' }, this.detail, this.caption), this.tools), this.note);
    this.current = undefined;
  }

  openNote(m) {
    const { ui, L } = this;
    const go = h('button', { class: 'fv-toggle', type: 'button', text: ui.route_note_go[L] });
    go.addEventListener('click', () => { this.closeNote(); this.jump(m.first); });
    const close = h('button', { class: 'fv-toggle', type: 'button', text: ui.route_note_close[L] });
    close.addEventListener('click', () => this.closeNote());
    this.note.replaceChildren(
      h('b', { text: `${fmt(ui.route_message[L], { n: m.n })} · ${m.name[L]} · ${m.reason_short[L]}` }),
      h('p', { class: 'fv-rnote-source', text: m.corrected_article[L] }),
      h('p', { text: m.reason_text[L] }),
      h('div', { class: 'fv-rnote-buttons' }, m.first !== null ? go : null, close));
    this.note.hidden = false;
    this.noteFor = m.n;
    close.focus({ preventScroll: true });
  }

  closeNote() {
    // Whether a note was open (Esc closes it before it leaves presenter mode).
    if (this.note.hidden) return false;
    this.note.hidden = true;
    this.noteFor = undefined;
    return true;
  }

  draw(bundle, L) {
    const route = bundle.route;
    this.route = route;
    this.phases = bundle.phases;
    this.ui = bundle.ui;
    this.L = L;
    this.grid.replaceChildren();
    this.cells = [];
    this.appBands = [];
    this.articleLabel = h('div', { class: 'fv-rrowlabel', style: `grid-row: ${ROW.article}; grid-column: 1` });
    this.appLabel = h('div', { class: 'fv-rrowlabel', style: `grid-row: ${ROW.app}; grid-column: 1` });
    this.grid.append(this.articleLabel, this.appLabel);
    this.articleBands = route.spans.article.map(([p, a, b]) => {
      const band = h('div', { class: 'fv-rband fv-rarticle', 'data-article-phase': String(p), style: `grid-row: ${ROW.article}; grid-column: ${spanColumns(a, b)}` });
      this.grid.append(band);
      return band;
    });
    this.pairs = messagePairs(bundle.hops);
    for (const m of route.messages) {
      const cell = h('button', { class: `fv-rcell fv-r-${m.state}`, type: 'button', 'data-message': String(m.n), 'data-state': m.state,
        style: `grid-row: ${ROW.message}; grid-column: ${messageColumn(m.n)}` });
      // A message this trace does not have says why in the line below instead.
      // One an article tells wrongly opens its whole note (which has a way to the message).
      cell.addEventListener('click', () => (m.corrected_article ? this.openNote(m) : m.first !== null ? this.jump(m.first) : this.explain(m)));
      cell.style.setProperty('--fv-phase', bundle.phases[m.app_phase].color);
      this.cells.push({ m, cell });
      this.grid.append(cell);
    }
    for (const [phase, a, b] of route.spans.app) {
      const first = bandTarget(route, a, b);
      const band = h('button', { class: 'fv-rband fv-rapp', type: 'button', 'data-phase': phase, style: `grid-row: ${ROW.app}; grid-column: ${spanColumns(a, b)}` });
      band.style.setProperty('--fv-phase', bundle.phases[phase].color);
      if (first !== undefined) band.addEventListener('click', () => this.jump(first));
      else band.disabled = true;
      this.appBands.push(band);
      this.grid.append(band);
    }
    this.current = undefined;
  }

  texts(L) {
    const ui = this.ui;
    this.L = L;
    this.articleLabel.textContent = ui.route_article[L];
    this.articleLabel.title = ui.route_source[L];
    this.appLabel.textContent = ui.route_app[L];
    for (const band of this.articleBands) {
      const phase = this.route.article_phases[band.dataset.articlePhase];
      band.textContent = phase.short[L];
      band.title = phase.name[L];
    }
    for (const band of this.appBands) band.textContent = this.phases[band.dataset.phase].name[L];
    for (const { m, cell } of this.cells) {
      const n = m.n === 0 ? ui.route_zero[L] : String(m.n);
      const extra = cellNote(m, ui, L);
      cell.replaceChildren(h('span', { class: 'fv-rnum', text: n }), h('span', { class: 'fv-rname', text: m.name[L] }));
      if (extra) cell.append(h('span', { class: 'fv-rnote', text: extra }));
      const head = m.n === 0 ? ui.route_phase_zero[L] : fmt(ui.route_message[L], { n: m.n });
      cell.title = [`${head} · ${m.name[L]}`, fmt(ui.route_says[L], { route: m.article_route[L] }),
        m.reason_text ? m.reason_text[L] : '', m.corrected_article ? ui.route_note_open[L] : m.first !== null ? ui.route_jump[L] : ''].filter(Boolean).join('\n');
    }
    this.captionBtn.textContent = ui.captions[L];
    this.current = undefined;
    if (this.noteFor !== undefined) this.openNote(this.route.messages.find((m) => m.n === this.noteFor));
  }

  setCaptions(on) {
    // The captions line on or off; the viewer repaints the strip and lays out again (the strip's height changed).
    this.captions = !!on;
    this.captionBtn.setAttribute('aria-pressed', this.captions ? 'true' : 'false');
    this.current = undefined;
  }

  explain(m) {
    const L = this.L;
    const ui = this.ui;
    this.current = undefined; // the next step paints the current message again
    this.detail.replaceChildren(...[h('b', { text: `${fmt(ui.route_message[L], { n: m.n })} · ${m.name[L]}` }),
      h('span', { class: 'fv-rsays', text: fmt(ui.route_says[L], { route: m.article_route[L] }) }),
      m.reason_text ? h('span', { class: 'fv-rreason', text: m.reason_text[L] }) : null].filter(Boolean));
  }

  paint(hop, L) {
    // Light the hop's message; returns its number (null for none), or undefined when nothing changed.
    const lit = litFor(this.route, hop);
    const key = `${lit.n}:${L}:${hop && hop.aside ? hop.aside.en : ''}`;
    if (key === this.current) return undefined;
    this.current = key;
    this.L = L;
    const { n, message: m } = lit;
    for (const { m: cellMessage, cell } of this.cells) cell.classList.toggle('fv-here', cellMessage.n === n);
    for (const band of this.articleBands) band.classList.toggle('fv-on', m !== null && +band.dataset.articlePhase === lit.article);
    for (const band of this.appBands) band.classList.toggle('fv-on', m !== null && band.dataset.phase === lit.app);
    const ui = this.ui;
    if (m === null) {
      this.detail.replaceChildren(h('span', { text: ui.route_outside[L] }));
      this.caption.textContent = '';
      return n;
    }
    const head = m.n === 0 ? ui.route_phase_zero[L] : fmt(ui.route_message[L], { n: m.n });
    const count = m.hops === 1 ? ui.route_hop[L] : fmt(ui.route_hops[L], { n: m.hops });
    this.detail.replaceChildren(...[
      h('span', { class: 'fv-rphase', text: this.route.article_phases[m.article_phase].short[L] }),
      h('b', { text: `${head} · ${m.name[L]}` }),
      h('span', { class: 'fv-rsays', text: fmt(ui.route_says[L], { route: m.article_route[L] }) }),
      h('span', { class: 'fv-rhere', text: fmt(ui.route_here[L], { route: pairsText(this.pairs.get(m.n), L), hops: count }) }),
      h('span', { class: 'fv-rapp-step', text: fmt(ui.route_app_step[L], { n: m.n, name: m.app_name[L] }) }),
      m.reason_text ? h('span', { class: 'fv-rreason', text: m.reason_text[L] }) : null,
      hop.aside ? h('span', { class: 'fv-rreason', text: hop.aside[L] }) : null].filter(Boolean));
    this.caption.textContent = this.captions ? ui.caption_prefix[L] + m.caption[L] : '';
    return n;
  }
}
