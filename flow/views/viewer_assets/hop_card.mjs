// The current hop in words: its kind and label, the other side of a hosted-MCP pair, its teaching text, a window of
// the hop list around it, and its JSON (json_tree.mjs). While its question waits (quiz.mjs) all but the list's
// numbers wait too: they would give the answer away.

import { h, fmt } from './dom.mjs';
import { JsonTree } from './json_tree.mjs';

const LIST_BEFORE = 2;
const LIST_AFTER = 3;

export function listWindow(i, count) {
  // The hops the list shows around hop i: the list never grows with the trace.
  return { from: Math.max(0, i - LIST_BEFORE), to: Math.min(count - 1, i + LIST_AFTER) };
}

export class HopCard {
  // `jump(i)`: a click on a listed hop or on a pair's link goes to hop i.
  constructor({ jump }) {
    this.jump = jump;
    this.label = h('div', { class: 'fv-label' });
    // Hosted MCP: whether the hop was seen or reported, and the other side of the pair, a click away.
    this.pair = h('div', { class: 'fv-pair', hidden: '' });
    this.teach = h('div', { class: 'fv-teach' });
    this.list = h('ol', { class: 'fv-list' });
    this.jsonTitle = h('div', { class: 'fv-json-title' });
    this.tree = new JsonTree(h('div', { class: 'fv-json' }));
  }

  get json() {
    return this.tree.container;
  }

  texts(ui, L) {
    this.ui = ui;
    this.jsonTitle.textContent = ui.json[L];
  }

  paint(hop, asking, L) {
    if (asking) {
      this.label.replaceChildren();
      this.paintPair(null, L);
      this.teach.hidden = true;
      this.tree.fill(h('p', { class: 'fv-hidden-hop', text: this.ui.hidden_hop[L] }));
    } else {
      this.label.replaceChildren(h('code', { text: hop.kind }), ' · ', hop.label);
      this.paintPair(hop, L);
      this.teach.hidden = false;
      this.teach.textContent = hop.teach[L];
      this.tree.show(hop.view, hop.focus, this.ui, L);
    }
  }

  paintPair(hop, L) {
    // A hop the provider reported: seen too (a jump to the frame) or not (what nobody here can know), and where the
    // report and the frame disagree, in red; a frame the provider also reported: a jump to its report.
    const ui = this.ui;
    const parts = [];
    const jump = (pair, key) => h('button', { class: 'fv-pair-go', type: 'button', onclick: () => this.jump(pair.index),
      text: fmt(ui[key][L], { n: pair.index + 1 }) + ' ▸' });
    if (hop && hop.reported) {
      parts.push(h('span', { class: 'fv-pair-tag', text: ui.reported_tag[L] }));
      parts.push(hop.pair ? jump(hop.pair, 'observed_at') : h('span', { text: ui.not_observed[L] }));
      if (hop.mismatch) parts.push(h('span', { class: 'fv-mismatch', text: fmt(ui.mismatch[L], { what: hop.mismatch.join(', ') }) }));
    } else if (hop && hop.pair) {
      parts.push(h('span', { class: 'fv-pair-tag fv-pair-seen', text: ui.observed_tag[L] }), jump(hop.pair, 'reported_at'));
    }
    this.pair.replaceChildren(...parts);
    this.pair.hidden = !parts.length;
  }

  paintList(hops, i, asking) {
    const { from, to } = listWindow(i, hops.length);
    const items = [];
    for (let k = from; k <= to; k++) {
      const hp = hops[k];
      const veiled = k === i && asking; // the hop asked about keeps its words until the reveal
      items.push(h('li', { class: k === i ? (veiled ? 'fv-on fv-after' : 'fv-on') : k > i ? 'fv-after' : '', onclick: () => this.jump(k) },
        h('b', { text: hp.number }), ' ', h('span', { class: 'fv-li-label', text: hp.label })));
    }
    this.list.replaceChildren(...items);
  }
}
