// The live log: entries arrive as server-rendered <li> over server-sent events; a new one
// goes on top, a changed one (answered, pardoned) replaces itself. Nothing else runs here.
"use strict";
(function () {
  var list = document.getElementById("live");
  if (!list || !window.EventSource) return;
  var state = document.getElementById("live-state");
  var source = new EventSource(list.dataset.events);
  var KEEP = 500;
  source.addEventListener("entry", function (message) {
    var item = JSON.parse(message.data);
    var holder = document.createElement("template");
    holder.innerHTML = item.html.trim();
    var node = holder.content.firstElementChild;
    var old = document.getElementById(item.dom);
    if (old) {
      old.replaceWith(node);
    } else {
      node.classList.add("fresh");
      list.insertBefore(node, list.firstChild);
      while (list.children.length > KEEP) list.removeChild(list.lastChild);
    }
    var empty = document.getElementById("live-empty");
    if (empty) empty.remove();
  });
  source.addEventListener("end", function () {  // the session ended (logout, expiry): no reconnecting as it
    source.close();
    state.textContent = state.dataset.off;
    state.className = "state off";
  });
  source.addEventListener("open", function () {
    state.textContent = state.dataset.on;
    state.className = "state on";
  });
  source.addEventListener("error", function () {
    state.textContent = state.dataset.off;
    state.className = "state off";
  });
})();
