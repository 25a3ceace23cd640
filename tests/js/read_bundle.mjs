// Reads a bundle (JSON on standard input) as the viewer does, for tests/integration/test_viewer_bundle_node.py: checks it against
// the schema, then runs the viewer's readers over every hop and prints what they found, one JSON object:
// {errors: [...]} or {hops: [{message, marks, marked}], slices, bands}. `marks`: the focused fields the JSON card
// found in the hop's view; `marked`: how many the bundle asked it to mark.

import { readFileSync } from 'node:fs';

import { bundleErrors } from './bundle.mjs';
import { focusPlan } from '../../flow/views/viewer_assets/json_paths.mjs';
import { overviewSlices } from '../../flow/views/viewer_assets/overview.mjs';
import { bandTarget, litFor, messagePairs } from '../../flow/views/viewer_assets/route_model.mjs';

const bundle = JSON.parse(readFileSync(0, 'utf8'));
const errors = bundleErrors(bundle);
if (errors.length) {
  console.log(JSON.stringify({ errors }));
} else {
  const route = bundle.route;
  const pairs = messagePairs(bundle.hops);
  const hops = bundle.hops.map((hop) => {
    const lit = litFor(route, hop);
    const focus = hop.focus || [];
    return {
      message: lit.n,
      arrows: lit.n === null ? 0 : pairs.get(lit.n).length,
      marks: focusPlan(hop.view, focus).marks.size,
      marked: new Set(focus.filter((f) => !(f && f.open === true)).map((f) => JSON.stringify(Array.isArray(f) ? f : f.path))).size,
    };
  });
  const bands = route.spans.app.map(([, a, b]) => bandTarget(route, a, b) ?? null);
  console.log(JSON.stringify({ hops, bands, slices: overviewSlices(bundle.hops).length }));
}
