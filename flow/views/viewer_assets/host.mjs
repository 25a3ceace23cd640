// The page the viewer is mounted in (the Streamlit component, a self-contained file, a room's follower page): what
// a file's address asks for, the position told back (the host's report, or the file's own address), the focus the
// page held, and presenter mode above the page.

const REPORT_MS = 300; // the host hears the position once the presses pause this long

export function addressed(hash) {
  // What a self-contained file's address (#hop=N&presenter) asks for: {start (0-based), options}.
  const found = new URLSearchParams(hash.replace(/^#/, ''));
  const hop = parseInt(found.get('hop') || '', 10);
  return { start: Number.isFinite(hop) && hop > 0 ? hop - 1 : 0, options: found.has('presenter') ? { presenter: true } : null };
}

export function addressOf(index, presenter) {
  return `#hop=${index + 1}${presenter ? '&presenter' : ''}`;
}

export class HostLink {
  // `host()`: the host's options as they are now ({standalone, follower, report}); `where()`: {index, presenter},
  // or null before a trace is loaded.
  constructor(host, where) {
    this.host = host;
    this.where = where;
    this.timer = 0;
    this.reported = '';
  }

  report(trace, i, playing) {
    // Tell the host once the presses settle: one message per pause, not one per key; and only news. A host that
    // does not listen (a self-contained file) keeps the position in its address instead.
    clearTimeout(this.timer);
    if (!this.host().report) { this.timer = setTimeout(() => this.remember(), REPORT_MS); return; }
    this.timer = setTimeout(() => {
      const news = `${trace}:${i + 1}`;
      if (this.reported === news) return;
      this.reported = news;
      this.host().report({ trace, hop: i + 1 });
    }, playing ? 0 : REPORT_MS);
  }

  remember() {
    // The self-contained file keeps the hop and the mode in its address, so a reload, or a link to the file, opens
    // where the class was; the app keeps them in its own URL (the host's report and presenter).
    const host = this.host();
    const where = this.where();
    if (!host.standalone || host.follower || !where) return;
    const hash = addressOf(where.index, where.presenter);
    if (location.hash !== hash) {
      try { history.replaceState(history.state, '', hash); } catch { /* an address the browser will not change */ }
    }
  }

  cancel() {
    clearTimeout(this.timer);
  }
}

export function takeFocus(el) {
  // Another trace, chosen in the page (a sample from the sidebar's list, an upload, the last run): the keys step it
  // now (a clicker's PageDown, →), not the control that still holds the focus. Typing in a text box keeps it.
  const active = document.activeElement;
  if (!active || active === document.body || el.contains(active)) return;
  if (active.tagName === 'TEXTAREA' || active.isContentEditable || (active.tagName === 'INPUT' && active.type === 'text' && active.getAttribute('role') !== 'combobox')) return;
  active.blur();
  el.focus({ preventScroll: true });
}

export function topLayer(el, on) {
  // Presenter mode fills the window from the browser's top layer (a manual popover) where it can: above the page
  // whatever the page does meanwhile (Streamlit fades what a rerun has not redrawn yet, and the fade would put the
  // sidebar and the buttons below the viewer over it).
  if (!el.showPopover || !el.isConnected) return;
  const open = el.matches(':popover-open');
  if (on && !open) {
    el.popover = 'manual';
    el.showPopover();
  } else if (!on && open) {
    el.hidePopover();
    el.removeAttribute('popover');
  }
}
