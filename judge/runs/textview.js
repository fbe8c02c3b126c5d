// Judged text on the review pages (both modes) and the audit report: long texts cut, invisible
// characters marked.
// A text over CUT characters shows its first CUT and an "expand" control: an unbroken string of
// 50,000 characters would otherwise stall the page at every pair. Characters a reviewer cannot
// see but which change what a string is or how it reads — control, format (zero-width, bidi
// overrides and isolates, tags), line/paragraph separators, surrogates, invisible fillers — are
// shown as marked code points, e.g. ⟨U+202E⟩ (tab and line breaks stay as they are). Text goes
// in through textContent only: judged text is never markup.
"use strict";
window.TextView = (() => {
const CUT = 2000;
const HIDDEN_CLASS = "(?![\\t\\n\\r])[\\p{Cc}\\p{Cf}\\p{Cs}\\p{Zl}\\p{Zp}\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u3164\\uffa0]";
const HIDDEN = new RegExp(HIDDEN_CLASS, "gu"), HAS_HIDDEN = new RegExp(HIDDEN_CLASS, "u");
const expanded = new Set();  // texts the reviewer expanded: they stay expanded when redrawn

function codePoint(ch) { return "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0"); }

// append text to node, each hidden character as <span class="invisible">⟨U+XXXX⟩</span>
function marked(node, text) {
  let last = 0;
  for (const m of text.matchAll(HIDDEN)) {
    if (m.index > last) node.appendChild(document.createTextNode(text.slice(last, m.index)));
    const s = document.createElement("span");
    s.className = "invisible"; s.textContent = "⟨" + codePoint(m[0]) + "⟩";
    s.title = "an invisible or direction-changing character, " + codePoint(m[0]);
    node.appendChild(s);
    last = m.index + m[0].length;
  }
  if (last < text.length) node.appendChild(document.createTextNode(text.slice(last)));
}

// node's content becomes text: marked, and cut at CUT characters with an "expand" button
function set(node, text) {
  text = text === null || text === undefined ? "" : String(text);
  node.textContent = "";
  node.classList.toggle("expanded", text.length > CUT && expanded.has(text));
  if (text.length <= CUT || expanded.has(text)) { marked(node, text); return node; }
  let end = CUT;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;  // never half of a surrogate pair
  marked(node, text.slice(0, end));
  const more = document.createElement("span");
  more.className = "cut"; more.textContent = " … " + (text.length - end).toLocaleString("en") + " more characters ";
  const b = document.createElement("button");
  b.type = "button"; b.className = "expand"; b.textContent = "expand";
  b.addEventListener("click", (ev) => { ev.stopPropagation(); expanded.add(text); set(node, text); });
  more.appendChild(b); node.appendChild(more);
  return node;
}

// every text node under root (views drawn by others too: ItemViews) as set() draws it
function fix(root) {
  if (!root) return;
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT), found = [];
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    // the reviewer asked for all of it; SVG text cannot hold the marks (HTML spans)
    if (n.parentElement.closest(".expanded, svg, script, style, textarea")) continue;
    if (n.nodeValue.length > CUT || HAS_HIDDEN.test(n.nodeValue)) found.push(n);
  }
  found.forEach(n => { const span = document.createElement("span"); const t = n.nodeValue; n.parentNode.replaceChild(span, n); set(span, t); });
}

return {CUT, set, fix};
})();
