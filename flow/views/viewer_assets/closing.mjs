// The closing view, one more step after the last hop: what this run shows (bundle.closing, from
// flow/views/closing.py; null for a part of a long trace): a notice, then its sections in two columns on a wide
// screen (the questions and the roles, then the cost and the choice), a section's share drawn as a bar.
//
// When it does not fit its box (a 1280 × 720 projector), it is paged: one column, as many parts as fit whole on
// each page, and Next / Previous (a clicker, the arrows) turn the pages before they leave the view.

import { h, fmt } from './dom.mjs';

export class ClosingView {
  constructor() {
    this.el = h('div', { class: 'fv-closing', 'aria-live': 'polite' });
    this.blocks = [];
    this.pages = null;
    this.page = 0;
  }

  paint(closing, note, ui, L) {
    // `closing`: the bundle's closing in one language; `note`: the sample's note, held back to here when it tells
    // what the questions ask.
    const blocks = [];
    if (note) blocks.push(h('p', { class: 'fv-closing-note', text: note }));
    if (closing.notice) blocks.push(h('p', { class: 'fv-closing-notice', text: closing.notice }));
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
      blocks.push(section);
    });
    this.pager = h('div', { class: 'fv-closing-pager', hidden: '' });
    this.words = { ui, L };
    this.el.replaceChildren(this.pager, ...blocks.filter((b) => !b.matches('section')), h('div', { class: 'fv-closing-cols' }, ...columns));
    this.blocks = blocks;
    this.paginate();
  }

  paginate() {
    // Pages only when the whole view overflows its box. The units are the note, the notice and each section's
    // items; a page holds as many as fit whole, in reading order, each section's heading (and bar) above its items
    // on every page they reach.
    this.el.classList.remove('fv-paged');
    for (const node of this.el.querySelectorAll('[hidden]:not(.fv-closing-pager)')) node.hidden = false;
    this.pager.hidden = true;
    this.pages = null;
    this.page = 0;
    this.el.scrollTop = 0;
    if (!this.el.clientHeight || this.el.scrollHeight <= this.el.clientHeight + 1) return;
    this.el.classList.add('fv-paged');
    this.pager.hidden = false;
    this.pager.textContent = fmt(this.words.ui.closing_page[this.words.L], { n: 1, of: 1 });
    const style = getComputedStyle(this.el);
    const room = this.el.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) - this.pager.offsetHeight - 8;
    const tall = (el) => el.getBoundingClientRect().height + parseFloat(getComputedStyle(el).marginTop) + parseFloat(getComputedStyle(el).marginBottom);
    const pages = [];
    let used = Infinity;
    for (const block of this.blocks) {
      const items = block.matches('section') ? [...block.querySelectorAll('li')] : [block];
      const head = block.matches('section') ? tall(block) - items.reduce((sum, li) => sum + tall(li), 0) : 0;
      let here = false;
      for (const unit of items) {
        let need = tall(unit) + (here ? 0 : head);
        if (used + need > room) {
          pages.push(new Set());
          used = 0;
          need = tall(unit) + head;
        }
        pages[pages.length - 1].add(unit).add(block);
        used += need;
        here = true;
      }
      here = false;
    }
    this.pages = pages;
    this.show(0);
  }

  show(k) {
    this.page = k;
    const on = this.pages[k];
    for (const block of this.blocks) {
      block.hidden = !on.has(block);
      if (block.matches('section')) for (const li of block.querySelectorAll('li')) li.hidden = !on.has(li);
    }
    this.pager.textContent = fmt(this.words.ui.closing_page[this.words.L], { n: k + 1, of: this.pages.length });
    this.el.scrollTop = 0;
  }

  more() {
    // Whether a page follows the one shown.
    return !!this.pages && this.page < this.pages.length - 1;
  }

  forward() {
    // The next page; false when there is none (not paged, or the last page shown).
    if (!this.pages || this.page >= this.pages.length - 1) return false;
    this.show(this.page + 1);
    return true;
  }

  back() {
    // The page before; false on the first (Previous then leaves the view).
    if (!this.pages || this.page === 0) return false;
    this.show(this.page - 1);
    return true;
  }
}
