// The one style rule the polyfill adds to a page: NaCl elements draw
// nothing of their own. Chrome's plugin painted the element's box itself
// (nothing, for a plugin without graphics), and an <object>'s fallback
// content was not shown; today's browsers draw their "plugin not
// supported" placeholder there, or the fallback content. `opacity: 0`
// hides both without changing the layout, the element's visibility or the
// events it gets. `:where()` gives the rule no specificity, so any rule of
// the page still wins. polyfill.js inserts the same rule early (it cannot
// import this module), with the same id.

export const STYLE_ID = 'pexe-nacl-style';

export const STYLE_RULE =
  ':where(embed[type="application/x-pnacl" i], object[type="application/x-pnacl" i]) { opacity: 0; }';

/** Adds the rule to `doc` once. */
export function ensureStyle(doc = document) {
  if (doc.getElementById(STYLE_ID)) return;
  const style = doc.createElement('style');
  style.id = STYLE_ID;
  style.textContent = STYLE_RULE;
  (doc.head ?? doc.documentElement).appendChild(style);
}
