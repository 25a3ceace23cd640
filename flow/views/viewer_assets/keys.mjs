// The keys: what a key press asks the viewer to do, and whose a key is when the page has other controls. No DOM of
// its own: the viewer listens and does what these functions say.

const NEXT_KEYS = ['ArrowRight', 'ArrowDown', 'PageDown', ' '];
const PREV_KEYS = ['ArrowLeft', 'ArrowUp', 'PageUp'];
export const STEP_KEYS = [...NEXT_KEYS, ...PREV_KEYS]; // a clicker's, and the arrows
export const OVERLAY_KEYS = ['Escape', 'Enter', ...STEP_KEYS]; // close the join code on screen first
const TYPED_DIGITS = 6;

export function keyCommand(key, { typed = '', presenter = false, fullscreen = false } = {}) {
  // {cmd, typed, to}: cmd the name of one of the viewer's commands (viewer.mjs, commandTable(): next, prev, home,
  // end, jump to `to`, a 0-based index, presenter, fullscreen, leave-presenter), or 'typed' (the digits typed so
  // far changed), or null for a key the viewer leaves alone.
  const none = { cmd: null, typed };
  if (NEXT_KEYS.includes(key)) return { cmd: 'next', typed };
  if (PREV_KEYS.includes(key)) return { cmd: 'prev', typed };
  if (key === 'Home') return { cmd: 'home', typed };
  if (key === 'End') return { cmd: 'end', typed };
  if (/^[0-9]$/.test(key)) return { cmd: 'typed', typed: (typed + key).slice(-TYPED_DIGITS) };
  if (key === 'Backspace') return typed ? { cmd: 'typed', typed: typed.slice(0, -1) } : none;
  if (key === 'Enter') return typed ? { cmd: 'jump', typed: '', to: +typed - 1 } : none;
  if (key === 'p' || key === 'P') return { cmd: 'presenter', typed };
  if (key === 'f' || key === 'F') return { cmd: 'fullscreen', typed };
  if (key === 'Escape') {
    if (typed) return { cmd: 'typed', typed: '' };
    if (presenter && !fullscreen) return { cmd: 'leave-presenter', typed };
  }
  return none;
}

export function keysOf(target, { viewer, slider, pointed }) {
  // Whose a key is: 'field' (typing in a field, or a control reached with Tab: a keyboard user's), 'clicked' (a
  // radio, checkbox or button outside the viewer that the mouse just clicked: the sidebar's language, a lesson
  // toggle, "Present to a room"; a clicker's or an arrow's press after it still steps the viewer, instead of
  // changing that choice), 'list' (a closed drop-down list the mouse chose from: the same for the keys that step),
  // or 'viewer'. (:focus-visible cannot tell: Streamlit's widgets show focus after a click.) `viewer`: the viewer's
  // element; `slider`: its slider; `pointed`: whether focus last moved by a pointer's press rather than Tab.
  const tag = target && target.tagName ? target.tagName.toLowerCase() : '';
  if (!tag || target === slider) return 'viewer';
  if (tag === 'textarea' || tag === 'select' || target.isContentEditable) return 'field';
  if (target.getAttribute('role') === 'combobox' && target.getAttribute('aria-expanded') !== 'true' && !viewer.contains(target)) {
    return pointed ? 'list' : 'field';
  }
  const pressable = tag === 'button' || (tag === 'input' && ['radio', 'checkbox', 'button', 'submit', 'range'].includes(target.type));
  if (tag === 'input' && !pressable) return 'field';
  if (!pressable || viewer.contains(target)) return 'viewer';
  return pointed ? 'clicked' : 'field';
}

export function capturedBy(whose, key) {
  // Whether the viewer takes a key before the page's own handlers do (see keysOf): after a click on a control
  // outside it, and, after a choice from a closed list, the keys that step (the list keeps the letters it searches).
  return whose === 'clicked' || (whose === 'list' && STEP_KEYS.includes(key));
}

export class KeyRouter {
  // The document's key and pointer listeners for one viewer: `handle(event)` gets each key the viewer should take,
  // and says whether it did something with it.
  constructor({ viewer, slider, handle }) {
    this.whose = (target) => keysOf(target, { viewer: viewer(), slider, pointed: this.pointed });
    // How focus last moved: a pointer's press, or the Tab key.
    this.pointed = true;
    this.listeners = [
      [document, 'keydown', (e) => {
        // Before the page's own handlers: a control the mouse just clicked outside the viewer would take an arrow
        // itself (Streamlit's radios change their choice on one), so the viewer takes it first and keeps it.
        if (e.ctrlKey || e.metaKey || e.altKey) return;
        if (capturedBy(this.whose(e.composedPath ? e.composedPath()[0] : e.target), e.key) && handle(e)) e.stopPropagation();
      }, true],
      [document, 'pointerdown', () => { this.pointed = true; }, true],
      [document, 'keydown', (e) => { if (e.key === 'Tab') this.pointed = false; }, true],
      [document, 'keydown', (e) => {
        if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
        if (this.whose(e.composedPath ? e.composedPath()[0] : e.target) === 'viewer') handle(e);
      }, false],
    ];
    for (const [target, type, fn, capture] of this.listeners) target.addEventListener(type, fn, capture);
  }

  destroy() {
    for (const [target, type, fn, capture] of this.listeners) target.removeEventListener(type, fn, capture);
  }
}
