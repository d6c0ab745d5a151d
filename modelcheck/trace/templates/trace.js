// The trace page: select a step (click or tap, arrow keys, Home/End, the
// previous/next buttons, or #step-N in the address) and show its state; the
// swimlane row and the step's messages are highlighted with it.  Without an
// address the page opens where the property fails (the data's "open").
(function () {
  "use strict";
  var items = Array.prototype.slice.call(document.querySelectorAll("#steps li.step"));
  var panels = Array.prototype.slice.call(document.querySelectorAll("#states .state"));
  var count = items.length;
  // A long trace shows some of its steps: items are selected by position,
  // the diagram and the address speak of step numbers.
  var stepOf = items.map(function (li) { return li.getAttribute("data-step"); });
  var current = 0;
  var data = {};
  try {
    data = JSON.parse(document.getElementById("trace-data").textContent);
  } catch (e) { /* the page still works from step 0 */ }
  var narrow = window.matchMedia && window.matchMedia("(max-width: 760px)").matches;

  function each(selector, fn) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), fn);
  }

  function toggle(el, on) {
    if (el.classList) {
      if (on) { el.classList.add("selected"); } else { el.classList.remove("selected"); }
    }
  }

  // Scroll the step list, not the window: the page opens at its title and
  // why panel whichever step the address selects.
  function reveal(li) {
    var box = document.getElementById("timeline");
    if (!box) { return; }
    var top = li.offsetTop, bottom = top + li.offsetHeight;
    if (top < box.scrollTop) {
      box.scrollTop = top;
    } else if (bottom > box.scrollTop + box.clientHeight) {
      box.scrollTop = bottom - box.clientHeight;
    }
  }

  function select(index, fromHash) {
    if (count === 0) { return; }
    index = Math.max(0, Math.min(count - 1, index));
    current = index;
    items.forEach(function (li, i) {
      toggle(li, i === index);
      li.setAttribute("aria-selected", i === index ? "true" : "false");
    });
    panels.forEach(function (panel, i) { panel.hidden = i !== index; });
    each("#lanes-svg [data-step]", function (el) {
      toggle(el, el.getAttribute("data-step") === stepOf[index]);
    });
    document.body.setAttribute("data-step", stepOf[index]);
    each(".stepper .at", function (el) {
      el.textContent = (stepOf[index] === "0" ? "state 0" : "step " + stepOf[index]) +
        " of " + stepOf[count - 1];
    });
    each(".stepper button", function (el) {
      var move = Number(el.getAttribute("data-move"));
      el.disabled = index + move < 0 || index + move >= count;
    });
    reveal(items[index]);
    if (!fromHash && window.history && window.history.replaceState) {
      window.history.replaceState(null, "", "#step-" + stepOf[index]);
    }
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var moves = {ArrowDown: 1, ArrowRight: 1, j: 1, ArrowUp: -1, ArrowLeft: -1, k: -1};
    if (Object.prototype.hasOwnProperty.call(moves, event.key)) {
      select(current + moves[event.key]);
    } else if (event.key === "Home") {
      select(0);
    } else if (event.key === "End") {
      select(count - 1);
    } else {
      return;
    }
    event.preventDefault();
  });

  items.forEach(function (li, i) {
    li.addEventListener("click", function () { select(i); });
  });
  each(".stepper button", function (el) {
    el.addEventListener("click", function () {
      select(current + Number(el.getAttribute("data-move")));
    });
  });
  // On a phone the why panel's details start folded, so the steps and the
  // state at the violation are on the first screen.
  if (narrow) {
    each("#why details", function (el) { el.open = false; });
  }
  each("#lanes-svg .row-bg, #lanes-svg .step-mark, #lanes-svg .msg-label", function (el) {
    el.addEventListener("click", function () { select(stepOf.indexOf(el.getAttribute("data-step"))); });
  });

  var match = /^#step-(\d+)$/.exec(window.location.hash || "");
  var opening = Math.max(0, stepOf.indexOf(String(data.open)));
  select(match ? Math.max(0, stepOf.indexOf(match[1])) : opening, true);
})();
