// toolwire ui: redraw the live part of a page when the log changes, fetch long results when
// asked, and send answers to waiting calls. Text from the log is only ever set as textContent.
"use strict";

function follow(live) {
  if (live.hasAttribute("data-done")) return;
  const feed = new EventSource(live.dataset.feed);
  let busy = false;
  let again = false;
  async function redraw() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const response = await fetch(live.dataset.src, { credentials: "same-origin" });
      if (response.ok) swap(live, await response.text());
    } finally {
      busy = false;
      if (again) { again = false; redraw(); }
    }
    if (live.querySelector("[data-finished]")) feed.close();
  }
  // The first event comes at once: the log may have changed since the page was drawn.
  feed.addEventListener("change", redraw);
}

// Parts that do not change once drawn, and that a person may be working with (an answer being
// typed, a result opened in full), are kept as they are while they stay on the page.
function swap(live, html) {
  const kept = new Map();
  for (const node of live.querySelectorAll("[data-keep]")) kept.set(node.dataset.keep, node);
  const focused = document.activeElement;
  live.innerHTML = html;
  for (const node of live.querySelectorAll("[data-keep]")) {
    const old = kept.get(node.dataset.keep);
    if (old) node.replaceWith(old);
  }
  if (focused instanceof HTMLElement && live.contains(focused)) focused.focus();
}

async function showAll(button) {
  const box = button.closest("[data-keep]");
  const response = await fetch(button.dataset.full, { credentials: "same-origin" });
  if (!response.ok) { button.textContent = "could not load the result"; return; }
  const call = await response.json();
  box.querySelector("pre.result").textContent = call.result;
  button.remove();
}

async function answer(form, kind) {
  const status = form.querySelector(".status");
  status.textContent = "";
  const body = { answer: kind };
  if (kind === "decline") body.message = form.elements.message.value;
  if (kind === "edit") {
    try {
      body.arguments = JSON.parse(form.elements.arguments.value);
    } catch (error) {
      status.textContent = "not JSON: " + error.message;
      status.className = "status error";
      return;
    }
  }
  const response = await fetch(form.dataset.url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const reply = await response.json().catch(() => ({ error: response.statusText }));
  status.textContent = response.ok ? "sent: " + reply.answered : reply.error;
  status.className = response.ok ? "status sent" : "status error";
  if (response.ok) {
    for (const control of form.querySelectorAll("button, input, textarea")) control.disabled = true;
  }
}

document.addEventListener("click", event => {
  const target = event.target;
  if (!(target instanceof HTMLElement)) return;
  if (target.dataset.full) showAll(target);
  if (target.dataset.answer) answer(target.closest("form"), target.dataset.answer);
});
document.addEventListener("submit", event => {
  if (event.target.closest("form.approval")) event.preventDefault();
});
document.addEventListener("DOMContentLoaded", () => {
  const live = document.getElementById("live");
  if (live) follow(live);
});
