// The DOM helper the dashboard's scripts share (dashboard.js, photo.js): loaded before them.
// h("span", {class: "x"}, "text", child) makes an element; an attribute that is null, undefined
// or false is left out, true is an empty one; null, undefined and false children are skipped.
"use strict";

window.riichiDom = Object.freeze({
  h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  },
});
