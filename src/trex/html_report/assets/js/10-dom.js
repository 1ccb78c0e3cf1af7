// @ts-check
/* DOM helpers: elements built with createElement/textContent, never from HTML text. */

// ================================================================== helpers
const SVGNS = 'http://www.w3.org/2000/svg';

function h(tag, props, children) {
  const e = document.createElement(tag);
  if (props) setProps(e, props);
  if (children != null) append(e, children);
  return e;
}

function svgEl(tag, props) {
  const e = document.createElementNS(SVGNS, tag);
  if (props) setProps(e, props);
  return e;
}

function setProps(e, props) {
  for (const key of Object.keys(props)) {
    const v = props[key];
    if (v == null || v === false) continue;
    if (key === 'text') e.textContent = String(v);
    else if (key === 'class') e.setAttribute('class', v);
    else if (key === 'title') e.title = String(v);
    else if (key.slice(0, 2) === 'on') e.addEventListener(key.slice(2), v);
    else e.setAttribute(key, String(v));
  }
}

function append(e, children) {
  if (!Array.isArray(children)) children = [children];
  for (const c of children) {
    if (c == null || c === false) continue;
    e.append(c instanceof Node ? c : String(c)); // strings become text nodes
  }
  return e;
}

function clear(e) { e.replaceChildren(); return e; }

function readJSON(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}

/**
 * Follow a horizontal drag that started with `ev` on `handle`: `onDx` gets the pointer's offset
 * from where it was pressed, until it is released or cancelled.
 * @param {HTMLElement} handle @param {PointerEvent} ev @param {(dx: number) => void} onDx
 */
function dragX(handle, ev, onDx) {
  ev.preventDefault();
  handle.setPointerCapture(ev.pointerId);
  const x0 = ev.clientX;
  const move = (/** @type {PointerEvent} */ e) => onDx(e.clientX - x0);
  const up = () => {
    handle.removeEventListener('pointermove', move);
    handle.removeEventListener('pointerup', up);
    handle.removeEventListener('pointercancel', up);
  };
  handle.addEventListener('pointermove', move);
  handle.addEventListener('pointerup', up);
  handle.addEventListener('pointercancel', up);
}

/**
 * Run `fn` when the page is idle (after what is on screen was drawn), or soon.
 * @param {() => void} fn
 */
function later(fn) {
  if ('requestIdleCallback' in window) window.requestIdleCallback(() => fn(), { timeout: 300 });
  else setTimeout(fn, 0);
}
