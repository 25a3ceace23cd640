// Where the JSON card opens and what it marks: a hop's focus (bundle hop.focus, from flow.views.focus) is a list of
// paths into its view, each a list of keys or a string like "payload.messages[1].content", alone or as
// {path, color} (a pair of fields in one colour) or {path, open: true} (a container shown expanded, not marked).

export function typeOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function parsePath(path) {
  if (Array.isArray(path)) return path;
  if (typeof path !== 'string') return null;
  const out = [];
  for (const part of path.split('.')) {
    const m = part.match(/^([^[\]]*)((?:\[\d+\])*)$/);
    if (!m) return null;
    if (m[1]) out.push(m[1]);
    for (const idx of m[2].matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

export function resolvePath(root, path) {
  // A focus path may be written against the view, or against the payload inside it.
  for (const prefix of [[], ['payload'], ['payload', 'body']]) {
    let node = root;
    let ok = true;
    const full = [...prefix, ...path];
    for (const key of full) {
      if (node !== null && typeof node === 'object' && Object.prototype.hasOwnProperty.call(node, key)) node = node[key];
      else { ok = false; break; }
    }
    if (ok) return full;
  }
  return null;
}

// A path's name in the sets below: the card's nodes are found by it.
export const pathId = (path) => JSON.stringify(path);

export function focusPlan(value, focus) {
  // What the card opens (`open`: path ids), marks (`marks`: path id -> colour, '' for the default) and how many
  // levels it opens elsewhere (`depth`): with no focus three, with one only the way to each focused field.
  const open = new Set();
  const marks = new Map();
  let marked = 0;
  for (const item of focus || []) {
    const isObject = item && typeof item === 'object' && !Array.isArray(item);
    const path = parsePath(isObject ? item.path : item);
    const found = path && resolvePath(value, path);
    if (!found) continue;
    for (let i = 0; i <= found.length; i++) open.add(pathId(found.slice(0, i)));
    if (isObject && item.open === true) continue;
    marked += 1;
    marks.set(pathId(found), (isObject && item.color) || '');
  }
  return { open, marks, depth: marked ? 1 : 3 };
}
