// The page as readable text with its interactive elements numbered.
// Evaluated as an expression by agentd's browser; returns
// {text, count, url, title}. The numbered elements are kept in
// window.__deskrunElems (with the generation in __deskrunGen) until the
// next view or navigation.
((gen) => {
  const interactive = (el) => {
    const tag = el.tagName;
    if (tag === 'A') return el.hasAttribute('href');
    if (tag === 'BUTTON' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'SUMMARY') return true;
    if (tag === 'INPUT') return el.type !== 'hidden';
    if (el.isContentEditable && (el.parentElement === null || !el.parentElement.isContentEditable)) return true;
    const role = el.getAttribute('role');
    if (role && /^(button|link|checkbox|radio|tab|menuitem|option|switch|textbox|combobox|slider)$/.test(role)) return true;
    return el.hasAttribute('onclick') || (el.hasAttribute('tabindex') && el.tabIndex >= 0);
  };
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none';
  };
  const label = (el) => {
    const tag = el.tagName.toLowerCase();
    let attrs = '';
    if (tag === 'input') attrs += ' type="' + (el.type || 'text') + '"';
    for (const a of ['name', 'placeholder', 'aria-label', 'title', 'alt']) {
      const v = el.getAttribute(a);
      if (v) attrs += ' ' + a + '="' + v.slice(0, 80) + '"';
    }
    if (tag === 'input' || tag === 'textarea') {
      if (el.type === 'checkbox' || el.type === 'radio') attrs += el.checked ? ' checked' : '';
      else if (el.value) attrs += ' value="' + String(el.value).slice(0, 80) + '"';
    }
    let inner = '';
    if (tag === 'select') {
      inner = Array.from(el.options).map((o, i) => i + ':' + (o.selected ? '*' : '') + o.text.trim()).join(' | ');
    } else if (tag !== 'input' && tag !== 'textarea') {
      inner = (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 120);
    }
    return '<' + tag + attrs + '>' + inner + '</' + tag + '>';
  };
  const elems = [];
  const out = [];
  let line = '';
  const flush = () => { const t = line.replace(/\s+/g, ' ').trim(); if (t) out.push(t); line = ''; };
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD']);
  const block = /^(P|DIV|LI|UL|OL|TR|TABLE|SECTION|ARTICLE|HEADER|FOOTER|NAV|MAIN|H1|H2|H3|H4|H5|H6|FORM|FIELDSET|BR|HR|PRE|BLOCKQUOTE|DL|DT|DD|FIGURE|IMG)$/;
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) { line += node.nodeValue; return; }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const el = node;
    if (skip.has(el.tagName)) return;
    if (interactive(el) && visible(el)) {
      elems.push(el);
      line += ' [' + (elems.length - 1) + ']' + label(el) + ' ';
      return;
    }
    if (el.tagName === 'IMG') {
      const alt = el.getAttribute('alt');
      line += ' [image' + (alt ? ': ' + alt : '') + '] ';
      return;
    }
    const isBlock = block.test(el.tagName);
    if (isBlock) flush();
    for (const c of el.childNodes) walk(c);
    if (el.shadowRoot) for (const c of el.shadowRoot.childNodes) walk(c);
    if (isBlock) flush();
  };
  if (document.body) walk(document.body);
  flush();
  window.__deskrunElems = elems;
  window.__deskrunGen = gen;
  const sy = Math.round(window.scrollY), h = document.documentElement.scrollHeight, vh = window.innerHeight;
  return {
    text: out.join('\n'),
    elements: elems.length,
    url: location.href,
    title: document.title,
    scroll: 'scroll ' + sy + ' of ' + Math.max(0, h - vh) + ' px (viewport ' + window.innerWidth + 'x' + vh + ')',
  };
})
