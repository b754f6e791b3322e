// Ludothèque: the pages' only script. Forms and buttons that carry data-api call an
// internal /api/ route with JSON; data-then says what happens on success ("reload"
// by default, "stay", "key", "console", or a page: the sign-in page's, checked on the server to
// be a path of this site). Buttons with data-confirm need a
// second click. The dashboard and tasks pages follow the running task.
"use strict";

const T = JSON.parse(document.getElementById("i18n").textContent);

async function call(method, url, body) {
  const opts = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, opts);
  } catch (e) {
    throw new Error(T.network);
  }
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const slug = (data && data.error) || "internal_error";
    const detail = data && data.message ? " (" + data.message + ")" : "";
    throw new Error((T[slug] || T.internal_error) + detail);
  }
  return data;
}

function say(text, ok) {
  const box = document.getElementById("msg");
  box.textContent = text;
  box.classList.toggle("ok", !!ok);
  if (text) box.scrollIntoView({ block: "nearest" });
}

function after(el, data) {
  const then = el.dataset.then || "reload";
  if (then === "reload") location.reload();
  else if (then === "stay") { say(""); if (window.followJob) window.followJob(); }
  else if (then === "key") showKey(el, data);
  else if (then === "console") showConsole(el, data);
  else location.assign(then);
}

// A key just created: shown once in its box, and added to the list below.
function showKey(form, data) {
  document.getElementById("new-key-value").value = data.key;
  document.getElementById("new-key").hidden = false;
  const table = document.getElementById("keys");
  const row = table.tBodies[0].insertRow();
  row.dataset.keyId = data.id;
  const cells = [data.name, data.prefix + "…", data.read_only ? table.dataset.readOnly : "—",
    data.created_at.slice(0, 16).replace("T", " ") + " UTC", table.dataset.never];
  cells.forEach((text, i) => {
    const cell = row.insertCell();
    cell.textContent = text;
    if (i === 2 || i === 3) cell.className = "wide";
  });
  const revoke = document.createElement("button");
  revoke.type = "button";
  revoke.className = "danger";
  revoke.dataset.method = "DELETE";
  revoke.dataset.api = "/api/keys/" + data.id;
  revoke.setAttribute("data-confirm", "");
  revoke.textContent = table.dataset.revoke;
  row.insertCell().appendChild(revoke);
  table.hidden = false;
  document.getElementById("keys-empty").hidden = true;
  form.reset();
  say("");
}

// A console just added: its password and the address with it, shown once.
function showConsole(form, data) {
  document.getElementById("new-console-password").value = data.password;
  document.getElementById("new-console-url").value = "http://" + encodeURIComponent(data.name) +
    ":" + data.password + "@" + form.dataset.address + "/";
  document.getElementById("new-console").hidden = false;
  const table = document.getElementById("consoles");
  const row = table.tBodies[0].insertRow();
  [data.name, "—", table.dataset.never, ""].forEach((text) => { row.insertCell().textContent = text; });
  table.hidden = false;
  document.getElementById("consoles-empty").hidden = true;
  form.reset();
  say("");
}

document.addEventListener("submit", async (ev) => {
  const form = ev.target;
  if (!form.dataset.api) return;
  ev.preventDefault();
  if (form.dataset.same) {
    const [a, b] = form.dataset.same.split(",");
    if (form.elements[a].value !== form.elements[b].value) { say(T.passwords_differ); return; }
  }
  const body = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.type === "checkbox") body[el.name] = el.checked;
    else if (el.type === "number") body[el.name] = el.value === "" ? null : Number(el.value);
    else body[el.name] = el.value;
  }
  const button = form.querySelector("[type=submit]");
  if (button) button.disabled = true;
  try {
    after(form, await call(form.dataset.method || "POST", form.dataset.api, body));
  } catch (e) {
    say(e.message);
  } finally {
    if (button) button.disabled = false;
  }
});

document.addEventListener("click", async (ev) => {
  const copy = ev.target.closest("button[data-copy]");
  if (copy) {
    const input = document.getElementById(copy.dataset.copy);
    input.select();
    try { await navigator.clipboard.writeText(input.value); } catch (e) { document.execCommand("copy"); }
    copy.textContent = T.copied;
    return;
  }
  const button = ev.target.closest("button[data-api]");
  if (!button) return;
  if (button.hasAttribute("data-confirm") && !button.dataset.armed) {
    button.dataset.armed = button.textContent;
    button.textContent = T.confirm;
    setTimeout(() => {
      if (button.dataset.armed) { button.textContent = button.dataset.armed; delete button.dataset.armed; }
    }, 5000);
    return;
  }
  delete button.dataset.armed;
  button.disabled = true;
  try {
    after(button, await call(button.dataset.method || "POST", button.dataset.api));
  } catch (e) {
    say(e.message);
  } finally {
    button.disabled = false;
  }
});

// On a phone the menu scrolls sideways: show where we are. The menu's own scrollLeft
// moves, never the page's focus: scrollIntoView would move where the browser's
// sequential focus starts, and the first Tab would miss the skip link.
const current = document.querySelector("nav a[aria-current]");
if (current) {
  const menu = current.closest("nav");
  const [item, box] = [current.getBoundingClientRect(), menu.getBoundingClientRect()];
  menu.scrollLeft += item.left + item.width / 2 - (box.left + box.width / 2);
}

// The running task: poll while it runs, slowly otherwise.
(function () {
  const panel = document.getElementById("job");
  if (!panel) return;
  const bar = document.getElementById("job-progress");
  let timer = null;
  function render(job) {
    const last = job.last;
    const done = job.running ? job.done : last ? last.done : 0;
    const total = job.running ? job.total : last ? last.total : 0;
    bar.max = Math.max(total, 1);
    bar.value = Math.min(done, bar.max);
    document.getElementById("job-count").textContent = done + " / " + total;
    const word = (w) => T[w] || w;
    document.getElementById("job-label").textContent = job.running
      ? word(job.label) + " · " + job.detail
      : T.no_task;
    if (last) {
      document.getElementById("job-result").textContent =
        word(last.label) + " · " + word(last.result) + " · " + last.message;
      document.getElementById("job-last").hidden = false;
    }
    panel.dataset.state = job.running ? "running" : "idle";
  }
  let seenRunning = panel.dataset.state === "running";
  async function poll() {
    clearTimeout(timer);
    let running = false;
    try {
      const job = await call("GET", "/api/job");
      render(job);
      running = job.running;
      // A task just ended: the page's counts and history are stale, draw it again.
      if (seenRunning && !running) { location.reload(); return; }
      seenRunning = running;
    } catch (e) { /* the next poll tries again */ }
    timer = setTimeout(poll, running ? 300 : 3000);
  }
  window.followJob = poll;
  poll();
})();

// Library filters and the console's connection test (web-device).
// A form with data-autosubmit applies a change of one of its lists or boxes at once
// (its text field still waits for Enter); its button is only for pages without this
// script, so it goes. A button with data-probe asks its route and shows the answer's
// message in #device-test-result: nothing changes, so it is not a data-api action.
(function () {
  for (const form of document.querySelectorAll("form[data-autosubmit]")) {
    form.addEventListener("change", (ev) => {
      if (ev.target.matches("select, input[type=checkbox], input[type=radio]")) form.requestSubmit();
    });
    const button = form.querySelector("button[type=submit]");
    if (button) button.hidden = true;
  }
  document.addEventListener("click", async (ev) => {
    const button = ev.target.closest("button[data-probe]");
    if (!button) return;
    const out = document.getElementById("device-test-result");
    out.className = "";
    out.textContent = button.dataset.wait || "…";
    button.disabled = true;
    try {
      const answer = await call("POST", button.dataset.probe);
      out.textContent = answer.message;
      out.className = answer.reachable ? "ok" : "bad";
      out.dataset.reason = answer.reason;
    } catch (e) {
      out.textContent = e.message;
      out.className = "bad";
    } finally {
      button.disabled = false;
    }
  });
})();
