// Ludothèque: the pages' only script. Forms and buttons that carry data-api call an
// internal /api/ route with JSON (a file field sends its file's text); data-then says what happens on success ("reload"
// by default, "stay", "said" (shows the answer's `said`), "key", "console", "console-password", "listen" (goes where the service now listens), or a page: the sign-in page's, checked on the
// server to be a path of this site). A button with data-confirm="sentence" asks first
// in a dialog that names what it destroys; one with data-preview="route" asks that
// route for its plan ({question, sentence, rows, action, body}), shows it in the
// dialog, and on confirmation sends the plan's body; one with data-undo offers, on the next
// page, to restore what it moved to the trash. The dashboard and tasks pages follow
// the running task. A button with data-body sends that JSON.
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
    // The service says what went wrong in the reader's language; the slug's words
    // are for when it could not (the network, a proxy's page).
    const slug = (data && data.error) || "internal_error";
    const error = new Error((data && data.text) || T[slug] || T.internal_error);
    error.slug = slug;
    error.data = data;
    throw error;
  }
  return data;
}

// Ask before destroying: a modal dialog that names the item, with Cancel focused. A
// click on the confirm button in the first half second is ignored: it is the second
// click of a double-click that opened the dialog, not a decision. With a plan, the
// dialog is headed by its question and lists its rows (a flagged row stands apart).
function confirmFirst(text, action, plan) {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    dialog.className = plan ? "confirm plan" : "confirm";
    const sentence = document.createElement("p");
    sentence.id = "confirm-text";
    sentence.textContent = text;
    dialog.setAttribute("aria-describedby", "confirm-text");
    const row = document.createElement("div");
    row.className = "actions";
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "cancel secondary";
    cancel.textContent = T.cancel;
    const ok = document.createElement("button");
    ok.type = "button";
    ok.className = "confirm danger";
    ok.textContent = action;
    row.append(cancel, ok);
    if (plan) dialog.append(planHead(dialog, plan));
    dialog.append(sentence);
    if (plan) dialog.append(planRows(plan.rows));
    dialog.append(row);
    document.body.append(dialog);
    const opened = performance.now();
    let answer = false;
    cancel.addEventListener("click", () => dialog.close());
    ok.addEventListener("click", () => {
      if (performance.now() - opened < 500) return;
      answer = true;
      dialog.close();
    });
    dialog.addEventListener("close", () => { dialog.remove(); resolve(answer); });
    dialog.showModal();
    cancel.focus();
  });
}

function planHead(dialog, plan) {
  const head = document.createElement("h2");
  head.id = "confirm-title";
  head.textContent = plan.question;
  dialog.setAttribute("aria-labelledby", "confirm-title");
  return head;
}

function planRows(rows) {
  const list = document.createElement("ul");
  list.className = "plan-rows";
  for (const r of rows) {
    const item = document.createElement("li");
    if (r.flag) item.className = "flag";
    const text = document.createElement("code");
    text.textContent = r.text;
    item.append(text);
    if (r.note) {
      const note = document.createElement("small");
      note.textContent = r.note;
      item.append(note);
    }
    list.append(item);
  }
  return list;
}

// What a button asks before it acts: its plan (data-preview) or its sentence
// (data-confirm). {body} to send (undefined: none), or null when it does not go ahead.
async function ask(button) {
  if (button.hasAttribute("data-preview")) {
    const plan = await call("GET", button.dataset.preview);
    if (plan.body.keys.length === 0) { say(plan.sentence, true); return null; }
    return (await confirmFirst(plan.sentence, plan.action, plan)) ? { body: plan.body } : null;
  }
  if (button.hasAttribute("data-confirm")) {
    const yes = await confirmFirst(button.dataset.confirm || T.confirm, button.textContent);
    if (!yes) return null;
  }
  return { body: button.dataset.body ? JSON.parse(button.dataset.body) : undefined };
}

// After a move to the trash: the next page offers to restore it for a few seconds.
const UNDO_MS = 10000;
function rememberUndo(el, data) {
  if (!el.hasAttribute("data-undo") || !data || data.id === undefined) return;
  sessionStorage.setItem("undo", JSON.stringify({ id: data.id, name: data.name, at: Date.now() }));
}

(function offerUndo() {
  let undo = null;
  try { undo = JSON.parse(sessionStorage.getItem("undo")); } catch (e) { undo = null; }
  sessionStorage.removeItem("undo");
  if (!undo || Date.now() - undo.at > UNDO_MS) return;
  const bar = document.createElement("div");
  bar.id = "undo";
  bar.setAttribute("role", "status");
  const text = document.createElement("span");
  text.textContent = T.in_trash.replace("{name}", undo.name);
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = T.undo;
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const entry = await call("POST", "/api/trash/" + undo.id + "/restore");
      location.assign("/game/" + entry.key.split("/").map(encodeURIComponent).join("/"));
    } catch (e) { say(e.message); }
  });
  bar.append(text, " ", button);
  const main = document.getElementById("main");
  main.insertBefore(bar, main.querySelector("#msg"));
  setTimeout(() => bar.remove(), UNDO_MS - (Date.now() - undo.at));
})();

// A failure is said where the page's message sits, scrolled to; a success is a toast
// at the bottom of the window (the reader stays where they were), gone after 8 s.
function say(text, ok) {
  const box = document.getElementById("msg");
  box.textContent = text;
  box.classList.toggle("ok", !!ok);
  clearTimeout(say.timer);
  if (text && ok) say.timer = setTimeout(() => { if (box.textContent === text) box.textContent = ""; }, 8000);
  else if (text) box.scrollIntoView({ block: "nearest" });
}

function after(el, data) {
  rememberUndo(el, data);
  const then = el.dataset.then || "reload";
  if (then === "reload") location.reload();
  else if (then === "stay") { say(""); if (el.hasAttribute("data-start")) startButtons(true); if (window.followJob) window.followJob(); }
  else if (then === "key") showKey(el, data);
  else if (then === "console") showConsole(el, data);
  else if (then === "console-password") showPassword(data);
  else if (then === "signed-out") location.assign(data.then || "/login");
  else if (then === "said") say(data.said, true);
  else if (then === "listen") listened(data);
  else location.assign(then);
}

// The service listens elsewhere: the same page, where the browser reaches it now.
function listened(data) {
  if (data.origin === location.origin) { say(data.said, true); location.reload(); }
  else location.assign(data.origin + location.pathname);
}

// Settings' title data files: sent as they are (multipart, read by the server as they
// arrive), with the upload's progress, then what each file gave, or why it was
// refused, below the form in the reader's language.
(function () {
  const form = document.getElementById("title-upload");
  if (!form) return;
  const bar = document.getElementById("title-upload-progress");
  const out = document.getElementById("title-upload-result");
  const button = form.querySelector("button[type=submit]");
  function done(lines, ok) {
    button.disabled = false;
    bar.hidden = true;
    out.replaceChildren(...lines.map((line) => {
      const li = document.createElement("li");
      li.textContent = line;
      return li;
    }));
    out.classList.toggle("warn", !ok);
  }
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (p) => { if (p.lengthComputable) bar.value = (100 * p.loaded) / p.total; };
    xhr.onload = () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch (err) { data = null; }
      if (xhr.status === 200 && data) { done(data.lines, true); form.reset(); }
      else done([data ? data.text || data.message : T.network], false);
    };
    xhr.onerror = () => done([T.network], false);
    button.disabled = true;
    bar.hidden = false;
    bar.value = 0;
    out.replaceChildren();
    xhr.send(new FormData(form));
  });
})();

// A button with data-fill="ID" data-value="TEXT" puts TEXT in the field ID.
document.querySelectorAll("button[data-fill]").forEach((b) => b.addEventListener("click", () => {
  const field = document.getElementById(b.dataset.fill);
  field.value = b.dataset.value;
  field.focus();
}));

// A moment in the reader's own zone and the page's language, as the server writes
// it (`view::date`): "28 nov. 2026, 10:36", "Nov 28, 2026, 10:36".
function momentText(iso) {
  const options = { dateStyle: "medium", timeStyle: "short", hourCycle: "h23" };
  return new Intl.DateTimeFormat(document.documentElement.lang || "fr", options)
    .format(new Date(iso));
}

// The page's moments, written by the server in its host's zone: again in the reader's.
document.querySelectorAll("time[data-moment]").forEach((t) => {
  const text = momentText(t.dateTime);
  if (text) t.textContent = text;
});

// Settings' organize template: as it is typed, what organize would do with it (the
// dialog's plan, `/api/organize/preview?template=`): its counts and the first moves;
// a template that is none says why.
(function () {
  const field = document.querySelector("input[data-template-preview]");
  if (!field) return;
  const out = document.getElementById(field.dataset.templatePreview);
  let timer = null;
  async function preview() {
    try {
      const plan = await call("GET", "/api/organize/preview?template=" + encodeURIComponent(field.value));
      const rows = plan.rows.slice(0, 3).map((r) => r.text + " " + r.note);
      out.textContent = [plan.counts, ...rows].join("\n");
      out.classList.remove("warn");
    } catch (e) {
      out.textContent = e.message;
      out.classList.add("warn");
    }
  }
  field.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(preview, 300); });
  preview();
})();

// A key just created: shown once in its box, and added to the list below.
function showKey(form, data) {
  document.getElementById("new-key-value").value = data.key;
  document.getElementById("new-key").hidden = false;
  const table = document.getElementById("keys");
  const row = table.tBodies[0].insertRow();
  row.dataset.keyId = data.id;
  const cells = [data.name, data.prefix + "…", data.read_only ? table.dataset.readOnly : table.dataset.fullAccess,
    momentText(data.created_at), table.dataset.never];
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
  revoke.setAttribute("data-confirm", table.dataset.confirmRevoke.replace("{name}", data.name));
  revoke.textContent = table.dataset.revoke;
  row.insertCell().appendChild(revoke);
  table.hidden = false;
  document.getElementById("keys-empty").hidden = true;
  form.reset();
  say("");
}

// A console's login just added, or given a new password: its password and the
// address with it, shown once, and every installer's fields and files filled with
// them (`web::setup`), their downloads rewritten to match.
function showPassword(data) {
  const form = document.getElementById("console-form");
  document.getElementById("new-console-password").value = data.password;
  document.getElementById("new-console-url").value = "http://" + encodeURIComponent(data.name) +
    ":" + data.password + "@" + form.dataset.address + "/";
  const box = document.getElementById("new-console");
  box.hidden = false;
  const fills = [[".fill-user", data.name], [".fill-user-url", encodeURIComponent(data.name)],
    [".fill-password", data.password]];
  for (const [selector, text] of fills) {
    document.querySelectorAll(selector).forEach((el) => { el.textContent = text; });
  }
  document.querySelectorAll("a[data-file]").forEach((a) => {
    const text = document.getElementById(a.dataset.file).textContent;
    a.href = "data:text/plain;charset=utf-8," + encodeURIComponent(text);
  });
  say("");
  box.scrollIntoView({ block: "nearest" });
}

// The installers' tabs: one panel shown, the others hidden (all are shown without
// the script); arrow keys move between tabs, as WAI-ARIA's tabs pattern has it.
(function () {
  const tabs = [...document.querySelectorAll("[role=tab]")];
  if (!tabs.length) return;
  function pick(tab) {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    }
  }
  tabs.forEach((t, i) => {
    t.addEventListener("click", () => pick(t));
    t.addEventListener("keydown", (e) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (!step) return;
      const next = tabs[(i + step + tabs.length) % tabs.length];
      pick(next);
      next.focus();
    });
  });
  pick(tabs[0]);
})();

function showConsole(form, data) {
  showPassword(data);
  const table = document.getElementById("consoles");
  const row = table.tBodies[0].insertRow();
  [data.name, momentText(new Date().toISOString()), table.dataset.never, ""].forEach((text, i) => {
    const cell = row.insertCell();
    if (i === 0) {
      // The new console's own page, as the rows the server wrote link it.
      const link = document.createElement("a");
      link.href = "/consoles/" + encodeURIComponent(data.name);
      link.textContent = text;
      cell.append(link);
    } else cell.textContent = text;
    if (i === 1) cell.className = "wide";
  });
  // Its buttons, as the server writes them for the others (`shop::console_actions`).
  const api = "/api/consoles/" + encodeURIComponent(data.name);
  const actions = document.createElement("div");
  actions.className = "actions";
  const buttons = [["secondary", "POST", api + "/password", table.dataset.newPassword, table.dataset.confirmNewPassword],
    ["danger", "DELETE", api, table.dataset.remove, table.dataset.confirmRemove]];
  for (const [kind, method, url, label, confirm] of buttons) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = kind;
    if (method === "DELETE") b.dataset.method = method;
    else b.dataset.then = "console-password";
    b.dataset.api = url;
    b.setAttribute("data-confirm", confirm.replace("{name}", data.name));
    b.textContent = label;
    actions.append(b);
  }
  row.cells[3].append(actions);
  table.hidden = false;
  document.getElementById("consoles-empty").hidden = true;
  form.reset();
}

// A console's page: until its first request arrives, the status line asks every 3 s
// and says it when it comes ("connected — CyberFoil 1.4 from 192.168.1.20").
(function followConsole() {
  const status = document.querySelector("#console-status[data-waiting]");
  if (!status) return;
  async function poll() {
    try {
      const s = await call("GET", status.dataset.status);
      status.textContent = s.line;
      if (s.connected) {
        delete status.dataset.waiting;
        return;
      }
    } catch (e) { /* the next poll tries again */ }
    setTimeout(poll, 3000);
  }
  setTimeout(poll, 3000);
})();

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
    else if (el.type === "file") body[el.name] = el.files.length ? await el.files[0].text() : "";
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
  const copyText = ev.target.closest("button[data-copy-text]");
  if (copyText) {
    const text = document.getElementById(copyText.dataset.copyText).textContent;
    try { await navigator.clipboard.writeText(text); copyText.textContent = T.copied; } catch (e) { say(T.network); }
    return;
  }
  const copy = ev.target.closest("button[data-copy]");
  if (copy) {
    const input = document.getElementById(copy.dataset.copy);
    input.select();
    try { await navigator.clipboard.writeText(input.value); } catch (e) { document.execCommand("copy"); }
    copy.textContent = T.copied;
    return;
  }
  const button = ev.target.closest("button[data-api]");
  if (!button || button.disabled) return;
  button.disabled = true;
  let go = null;
  try { go = await ask(button); } catch (e) { say(e.message); }
  if (!go) { button.disabled = false; button.focus(); return; }
  try {
    after(button, await call(button.dataset.method || "POST", button.dataset.api, go.body));
  } catch (e) {
    say(e.message);
  } finally {
    button.disabled = false;
  }
});

// The start buttons: disabled while a task runs (the service would answer "busy").
function startButtons(busy) {
  document.querySelectorAll("button[data-start]").forEach((b) => {
    b.disabled = busy || b.hasAttribute("data-blocked");
  });
  const cancel = document.getElementById("cancel");
  if (cancel) cancel.hidden = !busy;
  const why = document.getElementById("job-busy");
  if (why) why.hidden = !busy;
}

// The running task: poll while it runs, slowly otherwise. When the last run changes
// (a task ended, even one started elsewhere) the page's counts are stale: draw it
// again. Screen readers hear the start, each quarter and the end.
(function () {
  const panel = document.getElementById("job");
  const followers = [...document.querySelectorAll("[data-follow-job]")];
  if (!panel && followers.length === 0) return;
  let lastId = panel ? Number(panel.dataset.last) : null;
  let timer = null;
  let quarter = -1;
  const live = document.getElementById("job-live");
  function announce(text) { if (live) live.textContent = text; }
  function render(job) {
    // data-follow-job="line": what runs and how far, beside the button that started it
    // (with data-task, only while that task runs).
    for (const follower of followers) {
      if (follower.dataset.followJob === "line") {
        const shown = job.running && (!follower.dataset.task || follower.dataset.task === job.task);
        follower.textContent = shown ? [job.line, job.count].filter(Boolean).join(" · ") : "";
      } else if (job.first_scan) follower.textContent = job.first_scan;
    }
    if (!panel) return;
    const bar = document.getElementById("job-progress");
    bar.max = Math.max(job.total, 1);
    bar.value = Math.min(job.done, bar.max);
    document.getElementById("job-bar").hidden = !job.running;
    document.getElementById("job-count").textContent = job.count;
    document.getElementById("job-label").textContent = job.line;
    document.getElementById("job-busy").textContent = job.busy;
    startButtons(job.running);
    panel.dataset.state = job.running ? "running" : "idle";
    const q = job.running && job.total > 0 ? Math.floor((4 * job.done) / job.total) : -1;
    if (job.running && quarter === -1) announce(job.line);
    else if (q > quarter && q > 0) announce(job.count);
    quarter = job.running ? Math.max(q, 0) : -1;
  }
  async function poll() {
    clearTimeout(timer);
    let running = false;
    try {
      const job = await call("GET", "/api/job");
      if (lastId === null) lastId = job.last_id;
      if (job.last_id !== lastId) {
        sessionStorage.setItem("announce", job.last);
        location.reload();
        return;
      }
      render(job);
      running = job.running;
    } catch (e) { /* the next poll tries again */ }
    timer = setTimeout(poll, running ? 500 : 3000);
  }
  const ended = sessionStorage.getItem("announce");
  sessionStorage.removeItem("announce");
  if (ended) setTimeout(() => announce(ended), 300);
  window.followJob = poll;
  poll();
})();

// ---- Administering from the browser (trash purges, restore under another name) ----
// Kept to this block, apart from the rest: it only wraps two functions above.
// - data-then="freed": a purge answers {purged, bytes}; the page comes back with them
//   in its address, and the server says in the reader's language what was freed.
// - A restore refused by a conflict (a file holds the entry's place) shows that
//   row's hidden "restore under another name" form, its name already a free one.
(function () {
  const plainAfter = after;
  after = function (el, data) {
    if (el.dataset.then !== "freed") return plainAfter(el, data);
    location.assign(location.pathname + "?purged=" + Number(data.purged) + "&bytes=" + Number(data.bytes));
  };
  const plainCall = call;
  call = async function (method, url, body) {
    try {
      return await plainCall(method, url, body);
    } catch (e) {
      const form = /^\/api\/trash\/\d+\/restore$/.test(url) && body === undefined &&
        e.slug === "conflict" && document.querySelector('form.restore-as[data-api="' + url + '"]');
      if (form) { form.hidden = false; form.elements.name.focus(); }
      throw e;
    }
  };
  // Said once: a reload of the page does not say it again.
  if (document.getElementById("freed")) history.replaceState(null, "", location.pathname);
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

// The file list's selection: the ticked rows become each action's body (data-body)
// and its confirmation (data-confirm, asked by the click handler above), naming how
// many files and bytes it acts on: every ticked file for the trash and the push list,
// the .nsz/.xcz for decompress, the .nsp/.xci for compress (with its estimate). The
// templates, count words, units and decimal mark come from the page.
// The bar is looked up at each change: search as you type draws the list anew.
(function () {
  let bar, summary, estimate, hints, units;
  function size(bytes) {
    let value = bytes, unit = 0;
    while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit += 1; }
    let text = unit === 0 ? bytes + " " + units[0] : value.toFixed(1) + " " + units[unit];
    return bar.dataset.comma === "true" ? text.replace(".", ",") : text;
  }
  const files = (n) => (n === 1 ? bar.dataset.one : bar.dataset.many).replace("{n}", n);
  const fill = (template, picked, total) =>
    template.replace("{files}", files(picked.length)).replace("{size}", size(total));
  const kept = { all: () => true, convert: (b) => b.dataset.convert === "true", compress: (b) => b.dataset.compress === "true" };
  document.addEventListener("change", (ev) => {
    if (ev.target.id === "pick-all") {
      for (const box of document.querySelectorAll("input.pick")) box.checked = ev.target.checked;
    } else if (!ev.target.matches("input.pick")) return;
    if (bar !== document.getElementById("selection")) {
      bar = document.getElementById("selection");
      summary = document.getElementById("selection-summary");
      estimate = document.getElementById("compress-selected-estimate");
      hints = [summary.textContent, estimate.textContent];
      units = bar.dataset.units.split(",");
    }
    const ticked = [...document.querySelectorAll("input.pick:checked")];
    const sum = (boxes) => boxes.reduce((n, box) => n + Number(box.dataset.size), 0);
    summary.textContent = ticked.length === 0 ? hints[0] : fill(bar.dataset.picked, ticked, sum(ticked));
    for (const button of bar.querySelectorAll("button[data-selection]")) {
      const picked = ticked.filter(kept[button.dataset.selection]);
      button.disabled = picked.length === 0 || button.hasAttribute("data-blocked");
      button.dataset.body = JSON.stringify({ keys: picked.map((box) => box.value) });
      button.dataset.confirm = fill(button.dataset.ask, picked, sum(picked));
    }
    if (document.getElementById("compress-selected").hasAttribute("data-blocked")) return;
    const compress = ticked.filter(kept.compress);
    const total = sum(compress);
    const pct = (p) => Math.floor((total * Number(p)) / 100);
    estimate.textContent = compress.length === 0 ? hints[1] : bar.dataset.estimate
      .replace("{low}", size(pct(bar.dataset.low)))
      .replace("{high}", size(pct(bar.dataset.high)))
      .replace("{size}", size(total));
  });
})();

// Search as you type: a quarter of a second after the last key, the list below the
// search box is asked again and drawn in place, and the address keeps the search
// (history.replaceState), so a reload or a shared link shows the same list. Without
// this script the form still submits.
(function () {
  const results = document.getElementById("results");
  const form = document.querySelector("form[role=search]");
  const input = form && form.querySelector("input[type=search]");
  if (!results || !input) return;
  let timer = null;
  let asked = 0;
  async function refresh() {
    const params = new URLSearchParams(new FormData(form));
    for (const [name, value] of [...params]) if (value === "") params.delete(name);
    const url = form.getAttribute("action") + (params.size ? "?" + params : "");
    const mine = ++asked;
    let html;
    try {
      const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
      if (!response.ok) return;
      html = await response.text();
    } catch (e) { return; }
    if (mine !== asked) return; // a later key's answer wins
    const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("results");
    if (!fresh) return;
    results.replaceChildren(...fresh.childNodes);
    history.replaceState(null, "", url);
  }
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  });
})();
