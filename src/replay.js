// The replay page's script (kriegsspiel `replay`, src/replay.rs): applies the game's
// events to the counters and draws them on the map. State after `at` events is the
// scenario's set-up with events 0..at-1 applied; stepping back replays from the set-up.
// The page's address can drive it (links and the browser test use this):
//   #at=N            open after N events
//   #keys=K*n,...    press keys (ArrowRight, ArrowLeft, Home, End, PageUp, PageDown, +, -)
//   #click=ID*n,...  press buttons (first, prev-turn, prev, next, next-turn, last,
//                    zoom-in, zoom-out)
//   #turn=T          jump to the start of turn T
// joined with '&', run in order.
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('data').textContent);
  const NS = 'http://www.w3.org/2000/svg';
  const R = D.radius;
  const S = Math.round(R * 0.92);
  const colour = {};
  D.sides.forEach(function (s) { colour[s.name] = s.colour; });
  const byName = {};
  D.counters.forEach(function (c) { byName[c.name] = c; });
  const N = D.events.length;
  let units = new Map();
  let at = 0;

  function fresh(c) {
    return { c: c, hex: c.hex || null, status: c.hex ? 'map' : 'pending', step: 0, side: c.side,
      facing: c.facing || 0, face: null, marks: new Set() };
  }
  function reset() {
    units = new Map();
    D.counters.forEach(function (c) { units.set(c.name, fresh(c)); });
    at = 0;
  }
  // A unit by the log's name for it; a block a side's view names ("Red block 2") is
  // made when the log first shows it.
  function unit(name) {
    if (typeof name !== 'string') return null;
    let u = units.get(name);
    if (!u) {
      const m = /^(.*) block \d+$/.exec(name);
      const side = m && colour[m[1]] ? m[1] : null;
      const c = byName[name] || { name: name, side: side, type: side ? 'block' : '?', values: [''], steps: 1 };
      u = fresh(c);
      u.hex = null;
      u.status = 'pending';
      units.set(name, u);
    }
    return u;
  }
  // Apply one event; returns the unit it concerns (or null).
  function apply(x) {
    const e = x.ev;
    const u = unit(e.unit);
    switch (x.type) {
      case 'move': if (u) { u.hex = e.to; u.status = 'map'; } return u;
      case 'enter': if (u) { u.hex = e.at; u.status = 'map'; } return u;
      case 'retreat':
        if (u && Array.isArray(e.path) && e.path.length) u.hex = e.path[e.path.length - 1];
        if (u && e.off_map) u.status = 'removed';
        return u;
      case 'eliminate': if (u) u.status = 'eliminated'; return u;
      case 'remove': if (u) u.status = 'removed'; return u;
      case 'step_loss': case 'step_gain':
        if (u && typeof e.steps_left === 'number') u.step = Math.max(0, (u.c.steps || 1) - e.steps_left);
        return u;
      case 'transfer': if (u) u.side = e.to; return u;
      case 'face': if (u) u.facing = e.facing; return u;
      case 'form': if (u) u.face = e.to; return u;
      case 'mark': case 'unmark': {
        const v = typeof e.on === 'string' ? units.get(e.on) : null;
        if (v) { if (x.type === 'mark') v.marks.add(e.marker); else v.marks.delete(e.marker); }
        return v || null;
      }
    }
    return null;
  }

  const layer = document.getElementById('counters');
  const els = new Map();
  function el(tag, attrs) {
    const n = document.createElementNS(NS, tag);
    for (const k in attrs) n.setAttribute(k, attrs[k]);
    return n;
  }
  function label(u) {
    const v = u.c.values || [''];
    return v[Math.min(u.step, v.length - 1)] || '';
  }
  function counter(name, u) {
    let g = els.get(name);
    if (!g) {
      g = el('g', { 'class': 'counter', 'data-unit': name });
      g.appendChild(el('rect', { x: -S / 2, y: -S / 2, width: S, height: S, rx: 2 }));
      const t1 = el('text', { y: -1 }); const t2 = el('text', { y: 7 });
      g.appendChild(t1); g.appendChild(t2);
      g.appendChild(el('title', {}));
      g.addEventListener('click', function (ev) { ev.stopPropagation(); showStack(units.get(name).hex); });
      els.set(name, g);
    }
    const rect = g.firstChild;
    rect.setAttribute('fill', colour[u.side] || '#666');
    g.childNodes[1].textContent = (u.c.type || '').slice(0, 6);
    g.childNodes[2].textContent = label(u);
    g.childNodes[3].textContent = name + ' (' + (u.side || '?') + ' ' + (u.c.type || '') + ') ' + label(u) +
      (u.face ? ' · ' + u.face : '') + (u.marks.size ? ' · ' + Array.from(u.marks).join(', ') : '');
    return g;
  }
  let current = null;
  function render() {
    const stacks = new Map();
    units.forEach(function (u, name) {
      if (u.status === 'map' && u.hex && D.centres[u.hex]) {
        if (!stacks.has(u.hex)) stacks.set(u.hex, []);
        stacks.get(u.hex).push(name);
      }
    });
    const seen = new Set();
    stacks.forEach(function (names, hex) {
      const c = D.centres[hex];
      names.forEach(function (name, k) {
        const g = counter(name, units.get(name));
        g.setAttribute('transform', 'translate(' + (c[0] + 3 * k) + ',' + (c[1] - 3 * k) + ')');
        g.setAttribute('data-hex', hex);
        g.setAttribute('data-stack', k);
        g.setAttribute('data-side', units.get(name).side || '');
        g.classList.toggle('moved', current !== null && current === name);
        g.style.display = '';
        layer.appendChild(g);
        seen.add(name);
      });
    });
    els.forEach(function (g, name) {
      if (!seen.has(name)) { g.style.display = 'none'; g.removeAttribute('data-hex'); }
    });
    document.body.setAttribute('data-at', at);
    const x = at > 0 ? D.events[at - 1] : null;
    document.getElementById('caption').textContent = x
      ? (at + '/' + N + ' · ' + x.text)
      : ('0/' + N + ' · set-up of scenario ' + D.scenario);
    document.getElementById('where').textContent = x && x.turn != null ? 'turn ' + x.turn : 'set-up';
    document.querySelectorAll('#events li.now').forEach(function (li) { li.classList.remove('now'); });
    if (at > 0) {
      const li = list.children[at - 1];
      if (li) { li.classList.add('now'); if (li.scrollIntoView) li.scrollIntoView({ block: 'nearest' }); }
    }
    const t = turnAt(at);
    if (t !== null) sel.value = String(t);
  }
  function goto(n) {
    n = Math.max(0, Math.min(N, n | 0));
    if (n < at) reset();
    current = null;
    while (at < n) {
      const u = apply(D.events[at]);
      at += 1;
      current = u ? u.c.name : null;
    }
    render();
  }

  // Turns: the index of each `turn` event.
  const turns = [];
  D.events.forEach(function (x, i) { if (x.type === 'turn') turns.push(i); });
  const sel = document.getElementById('turn');
  turns.forEach(function (i) {
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = String(D.events[i].turn);
    sel.appendChild(o);
  });
  function turnAt(n) {
    let t = null;
    for (const i of turns) { if (i < n) t = i; else break; }
    return t;
  }
  function nextTurn() { for (const i of turns) if (i >= at) { goto(i + 1); return; } goto(N); }
  function prevTurn() {
    const t = turnAt(at - 1);
    if (t === null) { goto(0); return; }
    goto(t + 1);
  }
  sel.addEventListener('change', function () { goto(Number(sel.value) + 1); });

  const list = document.getElementById('events');
  const frag = document.createDocumentFragment();
  D.events.forEach(function (x, i) {
    const li = document.createElement('li');
    li.textContent = x.text || x.type;
    if (x.type === 'turn') li.className = 'turn';
    li.setAttribute('data-i', i);
    li.addEventListener('click', function () { goto(i + 1); });
    frag.appendChild(li);
  });
  list.appendChild(frag);

  const buttons = {
    first: function () { goto(0); }, prev: function () { goto(at - 1); }, next: function () { goto(at + 1); },
    last: function () { goto(N); }, 'prev-turn': prevTurn, 'next-turn': nextTurn,
  };
  // Zoom: the map's drawn size, its viewBox unchanged.
  const map = document.getElementById('map');
  const size = [Number(map.getAttribute('width')), Number(map.getAttribute('height'))];
  let zoom = 1;
  function setZoom(z) {
    zoom = Math.max(0.25, Math.min(4, z));
    map.setAttribute('width', Math.round(size[0] * zoom));
    map.setAttribute('height', Math.round(size[1] * zoom));
  }
  buttons['zoom-in'] = function () { setZoom(zoom * 1.25); };
  buttons['zoom-out'] = function () { setZoom(zoom / 1.25); };
  Object.keys(buttons).forEach(function (id) { document.getElementById(id).addEventListener('click', buttons[id]); });
  document.addEventListener('keydown', function (ev) {
    if (ev.target && ev.target.tagName === 'SELECT') return;
    const f = { ArrowRight: buttons.next, ArrowLeft: buttons.prev, Home: buttons.first, End: buttons.last,
      PageDown: nextTurn, PageUp: prevTurn, '+': buttons['zoom-in'], '=': buttons['zoom-in'],
      '-': buttons['zoom-out'] }[ev.key];
    if (f) { f(); ev.preventDefault(); }
  });

  // The stack in a hex, top counter first.
  function showStack(hex) {
    document.querySelectorAll('.hex.picked').forEach(function (h) { h.classList.remove('picked'); });
    const box = document.getElementById('stack');
    box.innerHTML = '';
    const h2 = document.createElement('h2');
    h2.textContent = 'Stack in ' + (hex || '?');
    box.appendChild(h2);
    const poly = document.querySelector('.hex[data-hex="' + (hex || '').replace(/"/g, '') + '"]');
    if (poly) poly.classList.add('picked');
    const ul = document.createElement('ul');
    const here = [];
    units.forEach(function (u, name) { if (u.status === 'map' && u.hex === hex) here.push([name, u]); });
    here.reverse().forEach(function (p) {
      const u = p[1];
      const li = document.createElement('li');
      const ratings = (u.c.ratings || []).join('-');
      li.textContent = p[0] + ' — ' + (u.side || '?') + ' ' + (u.c.type || '') + ', ' +
        (ratings ? ratings + ' ' : '') + label(u) + (u.c.steps > 1 ? ', step ' + (u.step + 1) + ' of ' + u.c.steps : '') +
        (u.face ? ', ' + u.face : '') + (u.marks.size ? ', marked ' + Array.from(u.marks).join(', ') : '');
      ul.appendChild(li);
    });
    if (!here.length) { const li = document.createElement('li'); li.textContent = 'empty'; li.className = 'gone'; ul.appendChild(li); }
    box.appendChild(ul);
  }
  document.querySelectorAll('.hex').forEach(function (h) {
    h.addEventListener('click', function () { showStack(h.getAttribute('data-hex')); });
  });

  function runHash() {
    const h = decodeURIComponent(location.hash.replace(/^#/, ''));
    if (!h) return;
    h.split('&').forEach(function (part) {
      const eq = part.indexOf('=');
      if (eq < 0) return;
      const k = part.slice(0, eq);
      part.slice(eq + 1).split(',').forEach(function (item) {
        if (!item) return;
        const star = item.lastIndexOf('*');
        const what = star < 0 ? item : item.slice(0, star);
        const times = star < 0 ? 1 : Math.max(0, Number(item.slice(star + 1)) | 0);
        for (let i = 0; i < times; i++) {
          if (k === 'at') goto(Number(what));
          else if (k === 'keys') document.dispatchEvent(new KeyboardEvent('keydown', { key: what, bubbles: true }));
          else if (k === 'click') { const b = document.getElementById(what); if (b) b.click(); }
          else if (k === 'turn') {
            const o = Array.from(sel.options).find(function (o) { return o.textContent === what; });
            if (o) { sel.value = o.value; sel.dispatchEvent(new Event('change')); }
          }
        }
      });
    });
  }
  window.addEventListener('hashchange', runHash);
  reset();
  render();
  runHash();
})();
