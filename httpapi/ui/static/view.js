// The answer panes: the picture, the JSON, a scenario's comparison
// table, and the download links for the JSON and the picture.
import { SVG, problemOf } from "./api.js";

const $ = (id) => document.getElementById(id);
const urls = { json: null, svg: null };
// WIDE is the width-to-height ratio beyond which a picture is laid out
// alone on its row (past it, half the page's width leaves it too short
// to read).
const WIDE = 2.5;

// setDownload points link kind ("json" or "svg") at a blob of text, or
// hides it when text is null.
function setDownload(kind, text, type, filename) {
  const a = $("dl-" + kind);
  if (urls[kind]) URL.revokeObjectURL(urls[kind]);
  urls[kind] = null;
  a.hidden = text === null;
  if (text === null) { a.removeAttribute("href"); return; }
  urls[kind] = URL.createObjectURL(new Blob([text], { type }));
  a.href = urls[kind];
  a.download = filename;
}

// clearAnswer empties every pane before a new run.
export function clearAnswer(caption) {
  $("response").textContent = "";
  $("comparison").hidden = true;
  setDownload("json", null);
  setDownload("svg", null);
  showNoPicture(caption ?? "");
}

// showJSON shows an answer (any value) and offers it for download.
export function showJSON(doc, filename) {
  const text = JSON.stringify(doc, null, 2);
  $("response").textContent = text;
  setDownload("json", text + "\n", "application/json", filename + ".json");
}

function showNoPicture(caption) {
  const img = $("picture-img");
  $("picture-size").hidden = true;
  img.hidden = true;
  img.removeAttribute("src");
  img.alt = "";
  $("picture-caption").textContent = caption;
  $("picture").dataset.state = "none";
}

// showPicture shows the answer of a request made with Accept:
// image/svg+xml: the SVG, or why there is none (406: the server draws no
// picture for this problem; that is normal, not an error).
export async function showPicture(resp, filename) {
  if (resp.status === 406) {
    showNoPicture("No picture: the server draws none for this answer (406).");
    return;
  }
  if (!resp.ok) {
    const p = await problemOf(resp);
    showNoPicture("No picture: " + p.title + (p.detail ? " (" + p.detail + ")" : ""));
    return;
  }
  if (!(resp.headers.get("Content-Type") ?? "").startsWith(SVG)) {
    showNoPicture("No picture: the server answered " + resp.headers.get("Content-Type") + ", not a picture.");
    return;
  }
  const svg = await resp.text();
  setDownload("svg", svg, SVG, filename + ".svg");
  const img = $("picture-img");
  if (!(await loadImage(img, urls.svg))) {
    showNoPicture("The picture could not be displayed.");
    return;
  }
  const title = elementText(svg, "title") || "Picture of the answer";
  const desc = elementText(svg, "desc");
  img.alt = title + (desc ? ". " + desc : "");
  img.hidden = false;
  // A wide picture (a scenario's panels side by side) gets the whole
  // width and keeps a readable height, scrolling sideways.
  $("result").classList.toggle("wide", img.naturalWidth > WIDE * img.naturalHeight);
  $("picture-size").hidden = false;
  $("picture-caption").textContent = title;
  $("picture").dataset.state = "shown";
}

// loadImage sets src and waits until the picture is decoded (true) or
// failed (false), so the page says "done" only once it is there.
function loadImage(img, src) {
  return new Promise((resolve) => {
    img.onload = () => resolve(true);
    img.onerror = () => resolve(false);
    img.src = src;
  });
}

const entities = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

// elementText reads the text of the SVG's first <name> element (its
// <title> and <desc>, which the server puts first): XML text with the
// predefined and numeric entities, no markup inside. A regular
// expression and not DOMParser, which under this page's
// Content-Security-Policy reports the style attributes of a parsed
// document as violations.
function elementText(svg, name) {
  const m = new RegExp("<" + name + "(?:\\s[^>]*)?>([^<]*)</" + name + ">").exec(svg);
  if (!m) return "";
  return m[1].replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (all, e) => {
    if (e[0] !== "#") return entities[e] ?? all;
    return String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
  });
}

// formatNumber prints a figure with at most 6 significant digits.
function formatNumber(v) {
  if (typeof v !== "number") return v ?? "";
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
}

// cell is one comparison entry: a column of a variant's row, with its
// difference to the base when the server computed one.
function cell(row, col) {
  let v = col in row && col !== "changed" ? row[col] : row.figures?.[col];
  if (col === "changed") v = row.changed ? row.changed.count : "";
  if (col === "state" && row.error) v = row.state + ": " + row.error.title;
  const d = row.delta?.[col];
  const text = formatNumber(v);
  return d !== undefined && d !== 0 ? text + " (" + (d > 0 ? "+" : "") + formatNumber(d) + ")" : String(text);
}

// showComparison renders a scenario's result with the variants side by
// side: one column per variant, one row per figure.
export function showComparison(c) {
  const table = $("comparison");
  const head = document.createElement("tr");
  head.append(th("figure", "col"), ...c.rows.map((r) => th(r.variant, "col", r.description)));
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(...c.columns.map((col) => {
    const tr = document.createElement("tr");
    tr.append(th(col, "row"), ...c.rows.map((r) => td(cell(r, col))));
    return tr;
  }));
  table.hidden = false;
}

function th(text, scope, title) {
  const e = document.createElement("th");
  e.scope = scope;
  e.textContent = text;
  if (title) e.title = title;
  return e;
}

function td(text) {
  const e = document.createElement("td");
  e.textContent = text;
  return e;
}
