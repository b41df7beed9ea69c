// The X-Flex plan's pipeline view: its four stages (X-Size, the mixes,
// X-Select, the X-Schedule simulation) in order, each with its status and
// the key figures of the plan's summary, and for the three stages that
// are endpoints of their own their request, to download or to send to
// that endpoint again (POST result.stages.NAME.endpoint), whose answer is
// compared with the plan's.
import { call, problemOf } from "./api.js";
import { formatNumber } from "./view.js";

const $ = (id) => document.getElementById(id);
const urls = [];

// PLAN is the problem whose answers the view shows.
export const PLAN = "xflex/plan";

// STAGES are the pipeline's stages in order: key is the stage's member
// of result.stages (none for the mix, which the plan computes itself),
// figures its summary figures as [label, text] pairs.
const STAGES = [
  { id: "xsize", key: "xsize", name: "1. X-Size: shapes", figures: (s) => [
    ["shapes", (s.shapes?.length ?? "–") + " of K " + (s.k ?? "–")],
    ["ε", num(s.epsilon) + (s.epsilon_target !== undefined ? " (target " + num(s.epsilon_target) + ")" : "")],
    ["waste", s.waste === undefined ? "–" : num(100 * s.waste) + "% over exact fit"],
  ] },
  { id: "mix", name: "2. Mixes: forecast → containers", figures: (s, r) => {
    const apps = r.mix?.apps ?? [];
    let n = 0;
    for (const a of apps) for (const c of Object.values(a.containers ?? {})) n += c;
    return [["applications", String(apps.length)], ["containers asked", String(n)], ["scale", num(r.mix?.scale)]];
  } },
  { id: "xselect", key: "xselect", name: "3. X-Select: packing", figures: (s) => [
    ["λ", num(s.lambda)], ["bound", num(s.lambda_upper_bound)], ["gap", num(s.lambda_gap)],
    ["containers placed", num(s.containers)],
  ] },
  { id: "simulate", key: "simulate", name: "4. X-Schedule: simulation", figures: (s) => [
    ["successes", [["X-Flex", s.xflex], ...Object.entries(s.baselines ?? {})]
      .map(([n, r]) => (BASELINES[n] ?? n) + " " + (r?.successes ?? "–")).join(" · ")],
    ["ratio X-Flex / DRF", num(s.success_ratio)],
    ["ceiling", num(s.ceiling) + (s.common_time !== undefined ? " (up to t = " + num(s.common_time) + ")" : "")],
  ] },
];

// BASELINES name the simulator's baselines (summary.baselines keys) as
// the picture does.
const BASELINES = { drf: "DRF", yarn_fair: "YARN Fair", yarn_capacity: "YARN Capacity" };

function num(v) { return v === undefined || v === null ? "–" : String(formatNumber(v)); }

// isPlan says whether an answer is a plan's (a result with stages and a
// summary), so the view shows only for what it can read.
export function isPlan(problem, doc) {
  return problem === PLAN && !!doc?.result?.stages && !!doc.result.summary;
}

// clearPipeline hides the view and frees its downloads.
export function clearPipeline() {
  for (const u of urls.splice(0)) URL.revokeObjectURL(u);
  const ol = $("pipeline");
  ol.replaceChildren();
  ol.hidden = true;
}

// showPipeline draws a plan's answer as its pipeline. edit(problem,
// text), when given, puts a stage's request in the page's editor.
export function showPipeline(doc, edit) {
  clearPipeline();
  const r = doc.result, s = r.summary;
  const ol = $("pipeline");
  for (const st of STAGES) ol.append(stageItem(st, r, s, edit));
  ol.hidden = false;
}

// statusOf is a stage's status: its answer's, "not run" without one, and
// "cut" for the stage the plan's budget cut short. The mix has no answer
// of its own: it is done when the plan reports it.
function statusOf(st, r) {
  if (r.stages.cut && r.stages.cut === st.key) return "cut" + (r.stages[st.key]?.status ? " (" + r.stages[st.key].status + ")" : "");
  if (!st.key) return r.mix ? "done" : "not run";
  return r.stages[st.key]?.status || "not run";
}

function stageItem(st, r, s, edit) {
  const li = document.createElement("li");
  li.className = "stage";
  li.dataset.stage = st.id;
  const status = statusOf(st, r);
  li.dataset.status = status;
  const h = document.createElement("h3");
  h.textContent = st.name;
  const badge = document.createElement("span");
  badge.className = "stage-status";
  badge.textContent = status;
  h.append(" ", badge);
  const dl = document.createElement("dl");
  for (const [k, v] of st.figures(s, r)) {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v;
    dl.append(dt, dd);
  }
  li.append(h, dl);
  const run = st.key ? r.stages[st.key] : undefined;
  if (!st.key) {
    li.append(note("Computed inside the plan from X-Size's shapes (result.mix); no endpoint of its own."));
  } else if (run?.request) {
    li.append(stageTools(st, run, edit));
  }
  return li;
}

function note(text) {
  const p = document.createElement("p");
  p.className = "help";
  p.textContent = text;
  return p;
}

// stageTools are a stage's request download, its re-run at its endpoint
// and, with edit, a button that opens the request in the editor.
function stageTools(st, run, edit) {
  const div = document.createElement("div");
  div.className = "toolbar";
  const text = JSON.stringify(run.request, null, 2) + "\n";
  const a = document.createElement("a");
  a.className = "button stage-request";
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  urls.push(url);
  a.href = url;
  a.download = "xflex-plan-" + st.id + "-request.json";
  a.textContent = "Request";
  a.setAttribute("aria-label", "Download the " + st.id + " stage's request");
  const rerun = document.createElement("button");
  rerun.type = "button";
  rerun.className = "stage-rerun";
  rerun.textContent = "Re-run at " + run.endpoint;
  const out = document.createElement("output");
  out.className = "stage-rerun-result";
  out.setAttribute("aria-live", "polite");
  rerun.addEventListener("click", () => rerunStage(run, text, rerun, out));
  div.append(a, rerun);
  if (edit) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "stage-edit";
    b.textContent = "Edit";
    b.setAttribute("aria-label", "Open the " + st.id + " stage's request in the editor");
    b.addEventListener("click", () => edit(run.endpoint.replace(/^\/v1\//, ""), text));
    div.append(b);
  }
  div.append(out);
  return div;
}

// rerunStage posts the stage's request to its endpoint and says what it
// answered, and whether its result is the plan's (elapsed aside: the
// result member alone is compared).
async function rerunStage(run, text, button, out) {
  button.disabled = true;
  out.dataset.state = "busy";
  out.textContent = "running…";
  try {
    const resp = await call("POST", run.endpoint, { body: text });
    if (!resp.ok) {
      const p = await problemOf(resp);
      out.dataset.state = "error";
      out.textContent = resp.status + " " + p.title;
      return;
    }
    const doc = await resp.json();
    const same = JSON.stringify(doc.result) === JSON.stringify(run.response?.result);
    out.dataset.state = same ? "same" : "different";
    out.textContent = (doc.meta?.status ?? "answered") + ", " + (doc.meta?.elapsed_ms ?? "?") + " ms: " +
      (same ? "the same result as in the plan" : "a result different from the plan's");
  } catch (err) {
    out.dataset.state = "error";
    out.textContent = String(err.message ?? err);
  } finally {
    button.disabled = false;
  }
}
