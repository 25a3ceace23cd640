// Where the viewer is: a hop (0-based index among `count`), or the closing view, the one step after the last hop
// when the trace has one (bundle.closing). No DOM: the viewer asks the stepper what a press does and paints what
// changed.

export class Stepper {
  constructor() {
    this.index = 0;
    this.count = 0;
    this.closing = false;
    this.hasClosing = false;
  }

  load(count, hasClosing, start, same) {
    // A new trace starts at `start`; the same trace again (another language, new options) stays where it is.
    this.count = count;
    this.hasClosing = hasClosing;
    this.index = same ? this.index : this.clamp(start);
  }

  clamp(index) {
    return Math.max(0, Math.min(this.count - 1, index | 0));
  }

  get last() {
    return this.index === this.count - 1;
  }

  action(delta, revealable) {
    // What a press of Next (delta 1) or Previous (-1) does, `revealable` when the current hop's question waits and
    // this screen may reveal it: 'reveal' it, 'open' the closing view after the last hop, 'leave' the closing view
    // (back to the last hop), 'goto' the neighbour, or 'none'.
    if (this.closing) return delta < 0 ? 'leave' : 'none';
    if (delta > 0 && revealable) return 'reveal';
    if (delta > 0 && this.count && this.last && this.hasClosing) return 'open';
    return this.count ? 'goto' : 'none';
  }

  goto(index) {
    // Go to a hop (clamped); false with no hops. Leaves the closing view: call leave() first to know whether it did.
    if (!this.count) return false;
    this.closing = false;
    this.index = this.clamp(index);
    return true;
  }

  open() {
    // The closing view; false when the trace has none or it is shown already.
    if (!this.hasClosing || this.closing) return false;
    this.closing = true;
    return true;
  }

  leave() {
    // Back from the closing view to the last hop; false when it was not shown.
    if (!this.closing) return false;
    this.closing = false;
    return true;
  }
}
