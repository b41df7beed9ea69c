// The planner page: choose a problem, edit its request (as JSON or in the
// fields generated from its schema), run it now or as a job (or a
// scenario of variants), see the answer and its picture, list the
// tenant's jobs and compare finished ones. Everything goes through the
// public API.
import { ApiError, SVG, call, json, problemOf, setToken, token } from "./api.js";
import { compareJobs } from "./compare.js";
import { Editor } from "./editor.js";
import { SchemaForm } from "./form.js";
import { memberTexts } from "./jsonpos.js";
import { isPlan, showPipeline } from "./pipeline.js";
import { clearAnswer, showComparison, showJSON, showPicture } from "./view.js";

const $ = (id) => document.getElementById(id);
// WAIT is how long one GET /v1/jobs/{id}?wait= may hold: it answers at
// once when the job's state changes, and at least this often otherwise,
// so the progress bar moves.
const WAIT = "1s";
const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);

const state = { problems: new Map(), loaded: "", job: null, finished: 0 };
let request, variants, form;

// setStatus tells what the page is doing; data-state lets tests (and
// styles) follow it: idle, busy, done, error.
function setStatus(kind, text) {
  const out = $("status");
  out.dataset.state = kind;
  out.textContent = text;
}

function setBusy(busy) {
  for (const id of ["run-sync", "run-job", "run-scenario", "load-example", "compare-jobs"]) $(id).disabled = busy;
}

function current() { return state.problems.get($("problem").value); }

// chosen is the problem to run; with none (the list did not load: a
// missing token, say) it says so instead.
function chosen() {
  const p = current();
  if (!p) throw new Error("No problem chosen: the problem list has not loaded.");
  return p;
}

// showFailure shows a problem document: its violations beside the
// editors (pointers under /input go to the request, under /variants to
// the variants), its title in the status line.
function showFailure(problem, fromJob) {
  const mine = [], theirs = [];
  for (const e of problem.errors ?? []) {
    if (fromJob && e.pointer.startsWith("/variants")) theirs.push({ ...e, pointer: e.pointer.slice("/variants".length) });
    else if (fromJob && e.pointer.startsWith("/input")) mine.push({ ...e, pointer: e.pointer.slice("/input".length) });
    else mine.push(e);
  }
  if (mine.length) request.showErrors(mine);
  if (theirs.length) { $("scenario").open = true; variants.showErrors(theirs); }
  const detail = mine.length || theirs.length || !problem.detail ? "" : ": " + problem.detail;
  setStatus("error", (problem.status ? problem.status + " " : "") + problem.title + detail);
}

// guarded runs an action with the buttons disabled, turning any API
// error into a shown failure (never an uncaught error in the console).
async function guarded(action) {
  setBusy(true);
  try {
    await action();
  } catch (err) {
    if (err instanceof ApiError) showFailure(err.problem, false);
    else setStatus("error", String(err.message ?? err));
  } finally {
    setBusy(false);
    // Counts finished actions, so a test (or a user's script) can wait
    // for the one it started.
    document.body.dataset.finished = String(++state.finished);
  }
}

async function loadProblems() {
  const { doc } = await json("GET", "/v1/problems");
  const select = $("problem");
  select.replaceChildren();
  for (const p of doc.problems) {
    state.problems.set(p.name, p);
    select.append(new Option(p.name, p.name));
  }
  await problemChanged();
}

// problemChanged shows the summary and loads the example, unless the
// editor holds the user's own edits.
async function problemChanged() {
  const p = current();
  $("summary").textContent = p ? p.summary + " (POST " + p.path + ")" : "";
  if (request.value.trim() === "" || request.value === state.loaded) await loadExample();
  else await refreshForm();
}

// refreshForm rebuilds or refills the schema's fields for the chosen
// problem and the editor's request.
async function refreshForm() {
  const p = current();
  if (p?.request_schema) await form.build(p.request_schema);
}

async function loadExample() {
  const p = current();
  if (!p?.example) { setStatus("error", "no example for " + p?.name); return; }
  const resp = await call("GET", p.example);
  if (!resp.ok) throw new ApiError({ status: resp.status, title: "Example not loaded" });
  state.loaded = await resp.text();
  request.value = state.loaded;
  await refreshForm();
  setStatus("idle", "Loaded the example of " + p.name + ".");
}

// loadFile puts a file in the editors: a request as it is, or a whole
// POST /v1/jobs body (examples/scenario.json: problem, input and
// variants) split into the problem, the request and the variants, each
// value's text as written.
async function loadFile(file) {
  const text = await file.text();
  state.loaded = "";
  let doc;
  try { doc = JSON.parse(text); } catch { doc = undefined; }
  const isJob = doc && typeof doc === "object" && !Array.isArray(doc) && typeof doc.problem === "string" &&
    doc.input && typeof doc.input === "object";
  if (!isJob) {
    request.value = text;
    await refreshForm();
    setStatus("idle", "Loaded " + file.name + ".");
    return;
  }
  const name = [...state.problems.values()].find((p) => p.name === doc.problem || p.command === doc.problem)?.name;
  if (!name) { setStatus("error", file.name + " is a job for " + doc.problem + ", which this server does not solve."); return; }
  $("problem").value = name;
  const parts = memberTexts(text);
  request.value = parts.get("input") + "\n";
  if (parts.has("variants")) {
    variants.value = parts.get("variants") + "\n";
    $("scenario").open = true;
  }
  await problemChanged();
  const n = Array.isArray(doc.variants) ? doc.variants.length : 0;
  setStatus("idle", "Loaded " + file.name + ": a " + name + " request" + (n ? " and " + n + " variant(s); Run scenario runs them." : "."));
}

// runSync solves the request once and shows its answer and the picture
// of that same answer: it runs as a job (POST /v1/jobs, followed with
// ?wait= until it ends), whose stored result the picture is drawn from.
// A server or token without the jobs API gets the answer from POST
// /v1/{problem} instead, without a picture (drawing one there would solve
// a second time).
async function runSync() {
  const p = chosen();
  if (request.parse() === undefined) { setStatus("error", "The request is not valid JSON."); return; }
  clearAnswer("Solving…");
  setStatus("busy", "Solving " + p.name + "…");
  const resp = await call("POST", "/v1/jobs", { body: submission(p, false) });
  if ([401, 403, 404, 405, 501].includes(resp.status) && !(await isRequestError(resp))) {
    await solveWithoutJobs(p);
    return;
  }
  if (!resp.ok) { showFailure(await problemOf(resp), true); return; }
  const job = await followJob((await resp.json()).id, false, p.command);
  if (job?.state === "succeeded") {
    const meta = JSON.parse($("response").textContent || "{}").meta;
    setStatus("done", p.name + ": " + (meta?.status ?? "answered") + summaryOf(meta));
  }
}

// isRequestError reports whether a refused job submission is about the
// request (violations to show), not about the jobs API being absent.
async function isRequestError(resp) {
  const p = await problemOf(resp.clone());
  return Array.isArray(p.errors) && p.errors.length > 0;
}

// solveWithoutJobs answers at POST /v1/{problem}, JSON only.
async function solveWithoutJobs(p) {
  const { doc } = await json("POST", p.path, { body: request.value });
  showJSON(doc, p.command + "-answer");
  if (isPlan(p.name, doc)) showPipeline(doc, editStage);
  $("picture-caption").textContent = "No picture: pictures are drawn from a job's stored answer, and this server or token has no jobs API.";
  setStatus("done", p.name + ": " + (doc.meta?.status ?? "answered") + summaryOf(doc.meta));
}

function summaryOf(meta) {
  if (!meta) return "";
  const parts = [];
  if (meta.objective !== undefined) parts.push("objective " + meta.objective);
  if (meta.gap !== undefined) parts.push("gap " + meta.gap);
  if (meta.elapsed_ms !== undefined) parts.push(meta.elapsed_ms + " ms");
  return parts.length ? " (" + parts.join(", ") + ")" : "";
}

// submitJob submits the request (and the variants, for a scenario) at
// POST /v1/jobs, then follows the job to its end.
async function submitJob(withVariants) {
  const p = chosen();
  if (request.parse() === undefined) { setStatus("error", "The request is not valid JSON."); return; }
  if (withVariants && variants.parse() === undefined) { setStatus("error", "The variants are not valid JSON."); return; }
  clearAnswer("Waiting for the job…");
  const resp = await call("POST", "/v1/jobs", { body: submission(p, withVariants) });
  if (!resp.ok) { showFailure(await problemOf(resp), true); return; }
  await followJob((await resp.json()).id);
}

// submission is the body of POST /v1/jobs with the editors' texts as
// they are (both parsed as JSON already), so the server judges exactly
// the numbers written, as POST /v1/{problem} does: a round trip through
// JavaScript numbers would turn 1e400 into null and round big integers.
function submission(p, withVariants) {
  const parts = ['{"problem": ' + JSON.stringify(p.name), '"input": ' + request.value];
  if (withVariants) parts.push('"variants": ' + variants.value);
  return parts.join(",\n") + "}";
}

// followJob follows a job until it ends (GET ?wait=, which answers as
// soon as its state changes), showing its progress, with the cancel
// button live meanwhile; then shows its answer (and, with status, says
// so in the status line; name names the downloads) and returns the
// ended job.
async function followJob(id, status = true, name = "") {
  state.job = id;
  $("cancel-job").disabled = false;
  try {
    let job;
    do {
      job = (await json("GET", "/v1/jobs/" + encodeURIComponent(id) + (job ? "?wait=" + WAIT : ""))).doc;
      showProgress(job);
    } while (!TERMINAL.has(job.state) && state.job === id);
    if (state.job === id) await showJobAnswer(job, status || job.state !== "succeeded", name);
    return job;
  } finally {
    if (state.job === id) { state.job = null; $("cancel-job").disabled = true; $("progress").hidden = true; }
    refreshJobs();
  }
}

function showProgress(job) {
  const pr = job.progress ?? {};
  const bar = $("progress");
  const frac = pr.fraction ?? (pr.variants_total ? pr.variants_done / pr.variants_total : pr.budget_used);
  bar.hidden = false;
  if (frac === undefined || frac === null) bar.removeAttribute("value");
  else bar.value = frac;
  const bits = [job.state, pr.phase];
  if (pr.objective !== null && pr.objective !== undefined) bits.push("objective " + pr.objective);
  if (pr.bound !== null && pr.bound !== undefined) bits.push("bound " + pr.bound);
  if (pr.message) bits.push(pr.message);
  setStatus("busy", "Job " + job.id + ": " + bits.filter(Boolean).join(", "));
}

// showJobAnswer fetches a finished job's result (a scenario's is the
// comparison of its variants) and its picture.
async function showJobAnswer(job, status, name) {
  const path = "/v1/jobs/" + encodeURIComponent(job.id) + "/result";
  const files = name ? [name + "-answer", name + "-picture"] : ["job-" + job.id, "job-" + job.id + "-picture"];
  const resp = await call("GET", path);
  const doc = await resp.json();
  if (!resp.ok) {
    showJSON(doc, "job-" + job.id + "-error");
    showFailure(doc, false);
    return;
  }
  showJSON(doc, files[0]);
  if (job.kind === "scenario") showComparison(doc);
  else if (isPlan(job.problem, doc)) showPipeline(doc, editStage);
  await showPicture(await call("GET", path, { accept: SVG }), files[1]);
  if (status) setStatus("done", "Job " + job.id + " " + job.state + (doc.meta ? summaryOf(doc.meta) : ""));
}

// editStage puts a plan's stage request in the editor, with its problem
// chosen, to edit and run alone.
function editStage(problem, text) {
  guarded(async () => {
    if (!state.problems.has(problem)) throw new Error("This server does not offer " + problem + ".");
    $("problem").value = problem;
    state.loaded = "";
    request.value = text;
    await problemChanged();
    setStatus("idle", "Loaded the plan's " + problem + " request: Run now solves it alone.");
  });
}

async function cancelJob() {
  const id = state.job;
  if (!id) return;
  const resp = await call("DELETE", "/v1/jobs/" + encodeURIComponent(id));
  const said = resp.ok ? "cancel requested" : (await problemOf(resp)).title;
  setStatus("busy", "Job " + id + ": " + said);
}

// refreshJobs lists the tenant's latest jobs; a server without a jobs
// store, or a token without the jobs scope, is said in the status.
async function refreshJobs() {
  const out = $("jobs-status");
  const resp = await call("GET", "/v1/jobs?limit=20");
  if (!resp.ok) {
    out.textContent = "Jobs not listed: " + resp.status + " " + (await problemOf(resp)).title;
    $("job-list").tBodies[0].replaceChildren();
    return;
  }
  const { jobs } = await resp.json();
  out.textContent = jobs.length + " job(s).";
  $("job-list").tBodies[0].replaceChildren(...jobs.map(jobRow));
}

function jobRow(job) {
  const tr = document.createElement("tr");
  const pr = job.progress ?? {};
  const frac = pr.fraction ?? pr.budget_used;
  const cells = [job.created_at, job.problem, job.kind, job.state,
    (pr.phase ?? "") + (frac !== undefined && frac !== null ? " " + Math.round(frac * 100) + "%" : "")];
  for (const c of cells) {
    const td = document.createElement("td");
    td.textContent = c ?? "";
    tr.append(td);
  }
  const td = document.createElement("td");
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = "Show " + job.id;
  b.addEventListener("click", () => guarded(() => followJob(job.id)));
  td.append(b);
  const pick = document.createElement("td");
  const box = document.createElement("input");
  box.type = "checkbox";
  box.className = "pick";
  box.value = job.id;
  box.disabled = job.state !== "succeeded" || job.kind === "scenario";
  box.setAttribute("aria-label", "Compare job " + job.id);
  pick.append(box);
  tr.append(td, pick);
  return tr;
}

// compareSelected compares the jobs ticked in the list.
async function compareSelected() {
  const ids = [...document.querySelectorAll("#job-list input.pick:checked")].map((e) => e.value);
  setStatus("busy", "Comparing " + ids.length + " jobs…");
  setStatus("done", await compareJobs(ids));
}

// togglePictureSize shows the picture at its own size (on its own row,
// scrolling) or shrunk to the pane where it is wider.
function togglePictureSize() {
  const actual = $("result").classList.toggle("actual");
  $("picture-size").setAttribute("aria-pressed", String(actual));
}

function wire() {
  request = new Editor($("request"), $("request-errors"));
  form = new SchemaForm($("fields"), request);
  let formTimer;
  $("request").addEventListener("input", () => {
    clearTimeout(formTimer);
    formTimer = setTimeout(() => refreshForm().catch(() => {}), 250);
  });
  variants = new Editor($("variants"), $("variants-errors"));
  // A variant every problem accepts (each request takes a seed); the
  // user writes the ones that matter for the instance.
  variants.value = JSON.stringify([{ name: "seed-2", description: "another random seed", patch: { seed: 2 } }], null, 2);
  $("token").value = token();
  $("token").addEventListener("change", () => { setToken($("token").value.trim()); guarded(start); });
  $("token-form").addEventListener("submit", (e) => e.preventDefault());
  $("problem").addEventListener("change", () => guarded(problemChanged));
  $("load-example").addEventListener("click", () => guarded(loadExample));
  $("file").addEventListener("change", (e) => e.target.files[0] && guarded(() => loadFile(e.target.files[0])));
  $("run-sync").addEventListener("click", () => guarded(runSync));
  $("run-job").addEventListener("click", () => guarded(() => submitJob(false)));
  $("run-scenario").addEventListener("click", () => guarded(() => submitJob(true)));
  $("cancel-job").addEventListener("click", () => cancelJob().catch((err) => setStatus("error", err.message)));
  $("picture-size").addEventListener("click", togglePictureSize);
  $("refresh-jobs").addEventListener("click", () => refreshJobs().catch((err) => setStatus("error", err.message)));
  $("compare-jobs").addEventListener("click", () => guarded(compareSelected));
  $("request").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); guarded(runSync); }
  });
}

async function start() {
  await loadProblems();
  await refreshJobs();
  document.body.dataset.ready = "true";
}

wire();
guarded(start);
