// The answer panes: the picture, the JSON, a scenario's comparison
// table, and the download links for the JSON and the picture.
import { SVG, problemOf } from "./api.js";
import { clearPipeline } from "./pipeline.js";

const $ = (id) => document.getElementById(id);
const urls = { json: null, svg: null, png: null };

// setDownload points link kind ("json", "svg" or "png") at a blob of text
// (or a Blob), or hides it when text is null.
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
  clearPipeline();
  setDownload("json", null);
  setDownload("svg", null);
  setDownload("png", null);
  showNoPicture(caption ?? "");
}

// showJSON shows an answer (any value) and offers it for download.
export function showJSON(doc, filename) {
  const text = JSON.stringify(doc, null, 2);
  $("response").textContent = text;
  setDownload("json", text + "\n", "application/json", filename + ".json");
}

function showNoPicture(caption) {
  $("picture-size").hidden = true;
  $("picture-svg").replaceChildren();
  $("picture-caption").textContent = caption;
  $("picture").dataset.state = "none";
}

// pictureOf reads the answer of a request made with Accept:
// image/svg+xml: the SVG's text, or why there is none (406: the server
// draws no picture for this problem; that is normal, not an error).
export async function pictureOf(resp) {
  if (resp.status === 406) return { why: "No picture: the server draws none for this answer (406)." };
  if (!resp.ok) {
    const p = await problemOf(resp);
    return { why: "No picture: " + p.title + (p.detail ? " (" + p.detail + ")" : "") };
  }
  if (!(resp.headers.get("Content-Type") ?? "").startsWith(SVG)) {
    return { why: "No picture: the server answered " + resp.headers.get("Content-Type") + ", not a picture." };
  }
  return { svg: await resp.text() };
}

// showPicture shows a picture answer in the picture pane, with its
// downloads (SVG, and PNG drawn from it).
export async function showPicture(resp, filename) {
  const { svg, why } = await pictureOf(resp);
  if (!svg) { showNoPicture(why); return; }
  const el = inlineSVG(svg);
  if (!el) { showNoPicture("The picture could not be displayed."); return; }
  setDownload("svg", svg, SVG, filename + ".svg");
  $("picture-svg").replaceChildren(el);
  const title = elementText(svg, "title") || "Picture of the answer";
  $("picture-size").hidden = false;
  $("picture-caption").textContent = title;
  $("picture").dataset.state = "shown";
  const png = await pngOf(svg);
  if (png) setDownload("png", png, "image/png", filename + ".png");
}

// inlineSVG parses a picture from the server into an <svg> element of
// this page, or null when it is not one. The page's own CSP forbids
// scripts and inline handlers; scripts, foreign objects, handler
// attributes and outside links are dropped anyway, so a picture can only
// draw. Its width and height attributes are its own size: the style
// sheet shrinks it to the pane (max-width) but never enlarges it.
export function inlineSVG(svg) {
  const doc = new DOMParser().parseFromString(svg, SVG);
  const root = doc.documentElement;
  if (root.nodeName !== "svg" || doc.getElementsByTagName("parsererror").length) return null;
  for (const e of [...root.querySelectorAll("script, foreignObject, style")]) e.remove();
  for (const e of [root, ...root.querySelectorAll("*")]) {
    for (const a of [...e.attributes]) {
      if (/^on/i.test(a.name) || (/href$/i.test(a.name) && !a.value.startsWith("#"))) e.removeAttribute(a.name);
    }
  }
  const el = document.importNode(root, true);
  const title = elementText(svg, "title") || "Picture of the answer";
  const desc = elementText(svg, "desc");
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", title + (desc ? ". " + desc : ""));
  return el;
}

// PNG_SCALE draws the PNG at twice the picture's size, sharp on a
// high-density screen or in a slide.
const PNG_SCALE = 2;

// pngOf draws an SVG on a canvas (as an image from a blob: URL, which the
// page's CSP allows) and returns the PNG, or null when the browser
// cannot.
export async function pngOf(svg) {
  const url = URL.createObjectURL(new Blob([svg], { type: SVG }));
  try {
    const img = new Image();
    await new Promise((resolve, reject) => { img.onload = resolve; img.onerror = reject; img.src = url; });
    const canvas = document.createElement("canvas");
    canvas.width = Math.ceil(img.naturalWidth * PNG_SCALE);
    canvas.height = Math.ceil(img.naturalHeight * PNG_SCALE);
    const g = canvas.getContext("2d");
    g.fillStyle = "#fff";
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
  } catch {
    return null;
  } finally {
    URL.revokeObjectURL(url);
  }
}

const entities = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

// elementText reads the text of the SVG's first <name> element (its
// <title> and <desc>, which the server puts first): XML text with the
// predefined and numeric entities, no markup inside. A regular
// expression and not DOMParser, which under this page's
// Content-Security-Policy reports the style attributes of a parsed
// document as violations.
export function elementText(svg, name) {
  const m = new RegExp("<" + name + "(?:\\s[^>]*)?>([^<]*)</" + name + ">").exec(svg);
  if (!m) return "";
  return m[1].replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (all, e) => {
    if (e[0] !== "#") return entities[e] ?? all;
    return String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
  });
}

// formatNumber prints a figure with at most 6 significant digits.
export function formatNumber(v) {
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
