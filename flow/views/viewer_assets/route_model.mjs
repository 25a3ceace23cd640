// The route at a glance, no DOM: where each message and band sits in the strip's grid, what is lit for a hop, and
// the words of the line below. Data: bundle.route (flow.views.viewer.route_bundle) — the messages, and the phase
// bands as spans [phase, first message, last message] from the one step table (flow.trace.steps.phase_spans).

import { fmt } from './dom.mjs';

// The grid: a label column, then one column a message (phase zero first); rows: the articles' phases, the
// messages, this app's phases.
export const ROW = { article: 1, message: 2, app: 3 };
export const messageColumn = (n) => `${n + 2}`;
export const spanColumns = (first, last) => `${first + 2} / ${last + 3}`;

export function messagePairs(hops) {
  // Who talks to whom in this trace, per message: the distinct arrows in the order they first appear. A hop's `from`
  // is where its arrow starts: a timeout's is the waiting side (flow.views.diagram.drawn_ends).
  const pairs = new Map();
  for (const hop of hops) {
    if (hop.message === null || hop.message === undefined) continue;
    const list = pairs.get(hop.message) || [];
    if (!list.some((p) => p.from.en === hop.from.en && p.to.en === hop.to.en)) list.push({ from: hop.from, to: hop.to });
    pairs.set(hop.message, list);
  }
  return pairs;
}

export function pairsText(pairs, L) {
  // At most two arrows, then an ellipsis; a hop within one actor names it once.
  const said = (pairs || []).map((p) => (p.from[L] === p.to[L] ? p.from[L] : `${p.from[L]} → ${p.to[L]}`));
  return said.length > 2 ? `${said.slice(0, 2).join('，')} …` : said.join(L === 'zh' ? '，' : ', ');
}

export function bandTarget(route, first, last) {
  // The hop a click on a band jumps to: the first hop of its first message this trace has; undefined for none.
  return route.messages.slice(first, last + 1).map((m) => m.first).find((f) => f !== null);
}

export function litFor(route, hop) {
  // What the strip lights for a hop: its message number (null for a wire frame outside the ten messages) and that
  // message's article and app phases.
  const n = hop && hop.message !== undefined ? hop.message : null;
  const m = n === null ? null : route.messages[n];
  return { n, message: m, article: m ? m.article_phase : null, app: m ? m.app_phase : null };
}

export function cellNote(m, ui, L) {
  // The small line under a message's name: why it is dim or half-dim, or how many separate visits the trace makes.
  return m.reason_short ? m.reason_short[L] : m.visits > 1 ? fmt(ui.route_visits[L], { n: m.visits }) : '';
}
