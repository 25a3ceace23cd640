// Painting: what the screen shows for where the viewer is. A step changes the stepper at once and asks for a paint;
// the painter paints on the next animation frame, once however many steps came before it, so N key presses always
// move N hops, whatever the speed. Each paint touches only what changed: the arrows between the old and the new
// position, the panel texts, a window of the hop list.

const FAST_MS = 350; // presses closer than this scroll instantly

export function noteHeld(bundle) {
  // A sample's note tells what its questions ask: with questions it waits for the closing view.
  return !!bundle.closing && bundle.hops.some((hop) => hop.question);
}

export class Painter {
  // `parts`: the viewer's parts a step shows in, and its root element; `now()`: {bundle, lang, index, closing,
  // playing, furthest (the last hop a room's follower may look at; null: any)} as the viewer has them;
  // `painted(i)`: told once hop i is painted (the viewer tells its host).
  constructor(parts, now, painted) {
    this.parts = parts;
    this.now = now;
    this.painted = painted;
    this.shown = -1; // the hop painted last; -1: paint whatever comes next
    this.frame = 0;
    this.fast = false;
    this.lastMove = 0;
  }

  moved() {
    // A step: presses close together (or autoplay, which sets `fast`) scroll the diagram instantly.
    const now = performance.now();
    this.fast = now - this.lastMove < FAST_MS;
    this.lastMove = now;
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.paint(false); });
  }

  cancel() {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
  }

  invalidate() {
    this.shown = -1;
  }

  repaint() {
    // Paint the current position again, whatever was painted last (a toggle, a reveal, the language changed it).
    this.shown = -1;
    this.paint(true);
  }

  paint(force) {
    const { bundle, lang: L, index: i, closing, playing } = this.now();
    if (closing) { this.paintClosing(); return; }
    if (!bundle || (!force && i === this.shown)) return;
    const hops = bundle.hops;
    const hop = hops[i];
    if (!hop) return;
    const { el, diagram, lanes, header, quiz, card, overview } = this.parts;
    const count = hops.length;
    const asking = quiz.asking(i);
    diagram.paint(hop.row, asking);
    lanes.paint(hop.row, asking, el.dataset.layout === 'phone');
    header.paint(hop, i, count, hop.phase ? bundle.phases[hop.phase] : null, bundle.ui, L);
    quiz.show(i, L);
    el.classList.toggle('fv-asking', asking);
    this.paintRoute(hop, L);
    card.paint(hop, asking, L);
    this.paintControls();
    card.paintList(hops, i, asking);
    overview.paint(i);
    this.shown = i;
    diagram.follow(this.fast || playing || force);
    this.painted(i);
    const mark = i + 1;
    requestAnimationFrame(() => setTimeout(() => {
      card.tree.reveal();
      el.dataset.asking = asking ? '1' : '';
      el.dataset.current = String(mark);
    }, 0));
  }

  paintControls() {
    // Previous and Next: also when only how far this screen may go changed (a room's teacher moved).
    const { bundle, index: i, closing, furthest } = this.now();
    if (!bundle || closing || !bundle.hops[i]) return;
    const count = bundle.hops.length;
    this.parts.controls.paint(i, count, !!bundle.closing && i === count - 1 && furthest === null, furthest);
  }

  paintRoute(hop, L) {
    const n = this.parts.routeStrip.paint(hop, L);
    if (n !== undefined) this.parts.el.dataset.message = n === null ? '' : String(n);
  }

  paintClosing() {
    const { bundle, lang: L } = this.now();
    const { el, closingView, header, controls } = this.parts;
    const closing = bundle.closing[L];
    header.paintClosing(closing.title, bundle.hops.length, bundle.ui, L);
    closingView.paint(closing, noteHeld(bundle) ? bundle.note[L] || '' : '', bundle.ui, L);
    controls.paintClosing(closingView.more());
    requestAnimationFrame(() => setTimeout(() => { if (this.now().closing) el.dataset.closing = '1'; }, 0));
  }
}
