// Layout arithmetic, no DOM: which layout fits the viewer's box, which arrows change state on a step, and where the
// diagram scrolls to keep the current arrow in view. diagram.mjs and viewer.mjs measure; these decide.

// The smallest arrow labels a layout may draw, in CSS px: a projector's back row reads 13 px at 1280 × 720 in normal
// mode and 16 px in presenter mode; a phone's reader, 12 px (where no layout draws the diagram that large, a phone
// gets rows instead, see chooseLayout).
export const LABEL_PX = 13;
export const PRESENTER_LABEL_PX = 16;
const PHONE_PX = 640; // with no drawing to measure, a box narrower than this is a phone's
const GAP = 12; // between the diagram and the JSON card (.fv-body's column gap)
const CHROME_PX = 17; // a classic scrollbar and the border, where the diagram's box is not shown to measure
const SCROLL_MARGIN = 12;

export function chooseLayout({ width, natural, units, presenter, chrome }) {
  // The layout that fits a box `width` px wide, measuring it against the drawing (`natural`: its width in drawing
  // units, 0 with none; `units`: its labels' font size in those units): arrow labels at least LABEL_PX
  // (PRESENTER_LABEL_PX in presenter mode) and every lifeline on screen, so the diagram is never drawn wider than
  // its box. {layout, column}: `column` the diagram's width beside the JSON card (0: the style sheet decides).
  //   wide:  the diagram with the hop's text under it, the JSON card beside both, the whole height;
  //   stack: a box too narrow for a JSON card beside the diagram: the diagram across, the text and the JSON below;
  //   phone: a box where even the whole width draws labels too small: the hop's card first, then the trace as rows
  //          (lanes.mjs) in place of the diagram.
  const least = presenter ? PRESENTER_LABEL_PX : LABEL_PX;
  if (natural ? ((width - 4) * units) / natural < least : width < PHONE_PX) return { layout: 'phone', column: 0 };
  if (!natural) return { layout: 'wide', column: 0 };
  // The drawing's width at that size, and what its box takes beside it: a border, and a scrollbar where the system
  // draws one (`chrome`, measured when the box is shown; null otherwise).
  const need = Math.ceil((natural * least) / units) + 5 + (chrome === null ? CHROME_PX : chrome);
  const sideLeast = presenter ? 400 : 300;
  if (width - GAP - need < sideLeast) return { layout: 'stack', column: 0 };
  return { layout: 'wide', column: Math.max(need, width - GAP - Math.min(680, Math.max(sideLeast, width * 0.36))) };
}

export function rowChanges(from, to) {
  // Stepping from the arrow at row `from` (-1: none painted yet, every row 'later') to row `to`: the other rows
  // whose state changes, as [row, 'earlier' | 'later'] — only those between the two positions.
  const out = [];
  if (from < 0) for (let r = 0; r < to; r++) out.push([r, 'earlier']);
  else if (to > from) for (let r = from; r < to; r++) out.push([r, 'earlier']);
  else if (to < from) for (let r = to + 1; r <= from; r++) out.push([r, 'later']);
  return out;
}

export function scrollTarget({ row, prev, scale, scrollX, scrollY, viewW, viewH, offsetX, naturalW, naturalH, covered = 0 }) {
  // Where the diagram scrolls ({x, y}) to keep the current arrow and its label (`row`: its box in drawing units)
  // fully in view, with the arrow before it (`prev`) above for context; where it is when it is in view already.
  // `covered`: the px at the top of a scrolled box that the lifelines' names cover. Clamped to where the browser
  // can actually scroll to, so the remembered position stays true.
  const s = scale;
  const curTop = row.top * s;
  const curBottom = row.bottom * s;
  const head = prev && Number.isFinite(prev.top) ? Math.min(prev.top * s, curTop) : curTop;
  const top = SCROLL_MARGIN + covered;
  let y = scrollY;
  if (head < scrollY + (scrollY > 0 ? top : SCROLL_MARGIN) || curBottom > scrollY + viewH - SCROLL_MARGIN) {
    y = head - top;
    if (curBottom - y > viewH - SCROLL_MARGIN) y = curTop - top;
  }
  const curLeft = row.left * s + offsetX;
  const curRight = row.right * s + offsetX;
  let x = scrollX;
  if (curLeft < scrollX + SCROLL_MARGIN) x = curLeft - SCROLL_MARGIN;
  else if (curRight > scrollX + viewW - SCROLL_MARGIN) x = Math.min(curRight - viewW + SCROLL_MARGIN, curLeft - SCROLL_MARGIN);
  return {
    x: Math.max(0, Math.min(x, naturalW * s + offsetX - viewW)),
    y: Math.max(0, Math.min(y, naturalH * s - viewH)),
  };
}
