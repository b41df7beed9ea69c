// Compare finished jobs of one problem side by side: a table with a
// column per job (its status, objective, bound, gap, time and the
// numeric figures of its result) and the jobs' pictures, drawn on shared
// scales, in a row that wraps, with the table offered as CSV and each
// picture as SVG and PNG.
import { SVG, call, json } from "./api.js";
import { elementText, formatNumber, inlineSVG, pictureOf, pngOf } from "./view.js";

const $ = (id) => document.getElementById(id);
let csvURL = null;
const pictureURLs = [];

// MAX_JOBS is the most jobs compared at once: a picture shares its
// scales with at most 8 others (GET /v1/jobs/{id}/picture?with=).
const MAX_JOBS = 9;

// META are the leading rows of every comparison: meta's figures.
const META = ["status", "objective", "bound", "gap", "elapsed_ms"];

// figures collects a result's numbers at depth one or two outside
// arrays, by dotted name (as the server's scenario comparison does).
function figures(result, prefix = "", depth = 1, out = new Map()) {
  if (!result || typeof result !== "object" || Array.isArray(result)) return out;
  for (const [k, v] of Object.entries(result)) {
    if (typeof v === "number") out.set(prefix + k, v);
    else if (depth < 2 && v && typeof v === "object" && !Array.isArray(v)) figures(v, prefix + k + ".", depth + 1, out);
  }
  return out;
}

// rowsOf is the comparison's rows: figure name, then one value per job.
function rowsOf(answers) {
  const names = [...META];
  const per = answers.map((a) => {
    const m = new Map(META.map((k) => [k, a.doc.meta?.[k]]));
    for (const [k, v] of figures(a.doc.result)) {
      const name = META.includes(k) ? "result." + k : k;
      m.set(name, v);
      if (!names.includes(name)) names.push(name);
    }
    return m;
  });
  return names.map((n) => [n, ...per.map((m) => m.get(n))]).filter((r) => r.slice(1).some((v) => v !== undefined));
}

// csvField quotes a field as RFC 4180 asks: in double quotes, doubled
// inside, when it holds a comma, quote or line break.
function csvField(v) {
  const s = v === undefined || v === null ? "" : String(v);
  return /[",\r\n]/.test(s) ? '"' + s.replaceAll('"', '""') + '"' : s;
}

export function toCSV(header, rows) {
  return [header, ...rows].map((r) => r.map(csvField).join(",")).join("\r\n") + "\r\n";
}

// compareJobs fetches the jobs' results and pictures and shows them; all
// must be finished jobs of one problem. It returns a status line.
export async function compareJobs(ids) {
  if (ids.length < 2) throw new Error("Choose two or more jobs to compare.");
  if (ids.length > MAX_JOBS) throw new Error("Choose at most " + MAX_JOBS + " jobs to compare.");
  const jobs = await Promise.all(ids.map(async (id) => (await json("GET", "/v1/jobs/" + encodeURIComponent(id))).doc));
  // Oldest first, as they were run (ties by id).
  jobs.sort((a, b) => (a.created_at ?? "").localeCompare(b.created_at ?? "") || a.id.localeCompare(b.id));
  const problems = new Set(jobs.map((j) => j.problem));
  if (problems.size > 1) throw new Error("Only jobs of one problem compare: these are of " + [...problems].join(", ") + ".");
  if (jobs.some((j) => j.kind === "scenario")) throw new Error("A scenario already compares its variants: choose single jobs.");
  // Each picture is drawn on the scales it shares with the others'
  // (GET /v1/jobs/{id}/picture?with=the other ids), so the same time or
  // length reads the same in every one, as in a scenario's picture.
  const answers = await Promise.all(jobs.map(async (j) => {
    const path = "/v1/jobs/" + encodeURIComponent(j.id);
    const { doc } = await json("GET", path + "/result");
    const others = jobs.filter((o) => o.id !== j.id).map((o) => o.id).join(",");
    const pic = await pictureOf(await call("GET", path + "/picture?with=" + encodeURIComponent(others), { accept: SVG }));
    return { job: j, doc, pic };
  }));
  const header = ["figure", ...jobs.map((j) => j.id)];
  const rows = rowsOf(answers);
  showTable(header, rows);
  if (csvURL) URL.revokeObjectURL(csvURL);
  const csv = toCSV(header, rows);
  csvURL = URL.createObjectURL(new Blob([csv], { type: "text/csv" }));
  const a = $("dl-csv");
  // The text itself too, for a script driving the page (the page's CSP
  // lets nothing fetch a blob: URL back).
  a.csv = csv;
  a.href = csvURL;
  a.download = "compare-" + jobs[0].problem.replaceAll("/", "-") + ".csv";
  a.hidden = false;
  await showPictures(answers);
  $("compare").hidden = false;
  return "Compared " + jobs.length + " jobs of " + jobs[0].problem + ".";
}

function showTable(header, rows) {
  const table = $("compare-table");
  const tr = document.createElement("tr");
  for (const h of header) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = h;
    tr.append(th);
  }
  table.tHead.replaceChildren(tr);
  table.tBodies[0].replaceChildren(...rows.map((r) => {
    const row = document.createElement("tr");
    r.forEach((v, i) => {
      const c = document.createElement(i === 0 ? "th" : "td");
      if (i === 0) c.scope = "row";
      c.textContent = i === 0 ? v : formatNumber(v);
      row.append(c);
    });
    return row;
  }));
}

async function showPictures(answers) {
  for (const u of pictureURLs.splice(0)) URL.revokeObjectURL(u);
  const figs = [];
  for (const a of answers) {
    const fig = document.createElement("figure");
    fig.className = "compared";
    const cap = document.createElement("figcaption");
    cap.textContent = "Job " + a.job.id + (a.pic.svg ? ": " + elementText(a.pic.svg, "title") : "");
    if (!a.pic.svg) {
      cap.textContent += " (" + a.pic.why + ")";
      fig.append(cap);
      figs.push(fig);
      continue;
    }
    const el = inlineSVG(a.pic.svg);
    const links = document.createElement("div");
    links.className = "toolbar";
    links.append(link(new Blob([a.pic.svg], { type: SVG }), "job-" + a.job.id + ".svg", "SVG"));
    const png = await pngOf(a.pic.svg);
    if (png) links.append(link(png, "job-" + a.job.id + ".png", "PNG"));
    fig.append(cap, ...(el ? [el] : []), links);
    figs.push(fig);
  }
  $("compare-pictures").replaceChildren(...figs);
}

function link(blob, filename, kind) {
  const a = document.createElement("a");
  a.className = "button";
  const url = URL.createObjectURL(blob);
  pictureURLs.push(url);
  a.href = url;
  a.download = filename;
  a.textContent = kind;
  a.setAttribute("aria-label", "Download the picture of " + filename.replace(/\.[a-z]+$/, "") + " as " + kind);
  return a;
}
