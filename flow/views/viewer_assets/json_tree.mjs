// The JSON card: a collapsible tree of the hop's view, opened at its focus (json_paths.mjs), branches filled when
// first opened, a long string cut to its start with the rest a click away.

import { h, fmt } from './dom.mjs';
import { focusPlan, pathId, typeOf } from './json_paths.mjs';

const LONG_STRING = 200; // characters of a string in the JSON card beyond which only its start shows
const LONG_STRING_SHOWN = 120;

export class JsonTree {
  // The tree is drawn into a new box each time, put in the old one's place: a new box starts scrolled to the top,
  // where setting the old one's scrollTop would make the browser lay the page out then and there, every step.
  constructor(container) {
    this.container = container;
    this.ui = null;
    this.first = null;
  }

  fill(...nodes) {
    const box = this.container.cloneNode(false);
    box.append(...nodes);
    this.container.replaceWith(box);
    this.container = box;
  }

  show(value, focus, ui, lang) {
    this.ui = ui;
    this.lang = lang;
    const plan = focusPlan(value, focus);
    this.open = plan.open;
    this.marks = plan.marks;
    this.depth = plan.depth;
    this.fill(this.node(null, value, [], 0));
    this.first = this.container.querySelector('.fv-mark');
  }

  reveal() {
    // The first marked field at the top of the card. Called after the frame that shows the step: measuring while
    // painting it would hold that frame back.
    const first = this.first;
    this.first = null;
    if (!first || !first.isConnected) return;
    const top = first.getBoundingClientRect().top - this.container.getBoundingClientRect().top;
    this.container.scrollTop += top - 8;
  }

  keyLabel(key) {
    if (key === null) return null;
    return h('span', { class: typeof key === 'number' ? 'fv-idx' : 'fv-key', text: typeof key === 'number' ? `${key}` : JSON.stringify(key) });
  }

  node(key, value, path, depth, below = null) {
    // `below`: how many levels under a focused field this node sits (null outside any focus).
    const id = pathId(path);
    const mark = this.marks.get(id);
    const rel = mark !== undefined ? 0 : below;
    const kind = typeOf(value);
    let row;
    if (kind === 'object' || kind === 'array') {
      const entries = kind === 'array' ? value.map((v, i) => [i, v]) : Object.entries(value);
      const summary = h('summary', {}, this.keyLabel(key), key === null ? null : h('span', { class: 'fv-punct', text: ': ' }),
        h('span', { class: 'fv-punct', text: kind === 'array' ? '[' : '{' }),
        h('span', { class: 'fv-count', text: ' ' + fmt(this.ui[(kind === 'array' ? ['item', 'items'] : ['key_count', 'keys_count'])[entries.length === 1 ? 0 : 1]][this.lang], { n: entries.length }) + ' ' }),
        h('span', { class: 'fv-punct', text: kind === 'array' ? ']' : '}' }));
      row = h('details', { class: 'fv-branch' }, summary);
      const fill = () => {
        if (row.dataset.filled) return;
        row.dataset.filled = '1';
        const box = h('div', { class: 'fv-children' });
        for (const [k, v] of entries) box.append(this.node(k, v, [...path, k], depth + 1, rel === null ? null : rel + 1));
        row.append(box);
      };
      // Open: the first levels, the way to each focused field, and three levels inside it.
      if (depth < this.depth || this.open.has(id) || (rel !== null && rel < 3)) {
        fill();
        row.open = true;
      }
      row.addEventListener('toggle', () => { if (row.open) fill(); });
    } else {
      const text = kind === 'string' ? JSON.stringify(value) : String(value);
      const shown = h('span', { class: `fv-${kind}`, text });
      row = h('div', { class: 'fv-leaf' }, this.keyLabel(key), key === null ? null : h('span', { class: 'fv-punct', text: ': ' }), shown);
      // A long string (a tool's JSON result as text, a prompt) shows its start, the rest a click away, so the fields
      // after it stay in the card; a string the step is about shows whole.
      if (text.length > LONG_STRING && mark === undefined) {
        shown.textContent = text.slice(0, LONG_STRING_SHOWN) + '…';
        const more = h('button', { class: 'fv-more', type: 'button', text: fmt(this.ui.more_chars[this.lang], { n: text.length - LONG_STRING_SHOWN }) });
        more.addEventListener('click', () => { shown.textContent = text; more.remove(); });
        row.append(' ', more);
      }
    }
    if (mark !== undefined) {
      row.classList.add('fv-mark');
      if (mark) row.style.setProperty('--fv-mark', mark);
    }
    // The view's `recorder` (flow.views.table.RECORDER): what the recorder added, set apart from what crossed.
    if (depth === 1 && key === 'recorder') {
      row.classList.add('fv-recorder');
      row.open = true; // a few short fields: shown, not a click away
      return h('div', { class: 'fv-recorder-box' }, h('div', { class: 'fv-recorder-note', text: this.ui.recorder_note[this.lang] }), row);
    }
    return row;
  }
}
