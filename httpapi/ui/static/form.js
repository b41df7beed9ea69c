// Fields for the numbers planners change, generated from the problem's
// request schema (GET /v1/schemas/...): the request's top-level settings
// (numbers, switches and choices such as K, ε, bounds, policy, metric,
// budget and seed), those one object down, and the count of each element
// of a top-level list that has one (machine types, node types). The
// fields and the JSON editor stay in step: typing in a field rewrites
// only that value in the editor's text, and editing the text refills the
// fields.
import { json } from "./api.js";
import { replaceValue } from "./jsonpos.js";

const schemaCache = new Map();
// MAX_ITEMS is the most elements of one list that get a count field.
const MAX_ITEMS = 24;

async function schemaAt(path) {
  if (!schemaCache.has(path)) schemaCache.set(path, json("GET", path).then((r) => r.doc));
  return schemaCache.get(path);
}

// resolve follows $ref (in the same document or in a sibling schema file
// such as common.json) until it reaches a schema without one.
async function resolve(schema, doc, base) {
  for (let n = 0; schema && schema.$ref && n < 16; n++) {
    const [file, frag] = schema.$ref.split("#");
    if (file) {
      base = base.slice(0, base.lastIndexOf("/") + 1) + file;
      doc = await schemaAt(base);
    }
    schema = (frag ?? "").split("/").filter(Boolean).reduce((s, k) => s?.[k.replaceAll("~1", "/").replaceAll("~0", "~")], doc);
  }
  return { schema: schema ?? {}, doc, base };
}

function kindOf(s) {
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === "string")) return "enum";
  if (t === "integer" || t === "number" || t === "boolean") return t;
  return "";
}

// fieldsOf lists the fields of a request schema for the request doc: a
// pointer, a label, the resolved schema and its kind.
async function fieldsOf(path, doc) {
  const root = await schemaAt(path);
  const out = [];
  for (const [key, raw] of Object.entries(root.properties ?? {})) {
    const { schema, doc: sdoc, base } = await resolve(raw, root, path);
    const kind = kindOf(schema);
    if (kind) { out.push({ pointer: "/" + esc(key), label: key, schema, kind }); continue; }
    if (schema.type === "object" && schema.properties) {
      for (const [sub, sraw] of Object.entries(schema.properties)) {
        const r = await resolve(sraw, sdoc, base);
        const k = kindOf(r.schema);
        if (k) out.push({ pointer: "/" + esc(key) + "/" + esc(sub), label: key + "." + sub, schema: r.schema, kind: k });
      }
    } else if (schema.type === "array" && schema.items) {
      const item = await resolve(schema.items, sdoc, base);
      const count = item.schema.properties?.count;
      const list = doc?.[key];
      if (!count || !Array.isArray(list)) continue;
      const c = await resolve(count, item.doc, item.base);
      list.slice(0, MAX_ITEMS).forEach((el, i) => {
        if (el && typeof el === "object" && "count" in el) {
          out.push({ pointer: "/" + esc(key) + "/" + i + "/count", label: key + "[" + (el.name ?? i) + "].count", schema: c.schema, kind: kindOf(c.schema) || "integer" });
        }
      });
    }
  }
  return out;
}

function esc(k) { return String(k).replaceAll("~", "~0").replaceAll("/", "~1"); }

function valueAt(doc, pointer) {
  return pointer.split("/").slice(1).reduce((v, k) => v?.[k.replaceAll("~1", "/").replaceAll("~0", "~")], doc);
}

// SchemaForm keeps the fields of one problem beside an Editor.
export class SchemaForm {
  constructor(box, editor) {
    this.box = box;
    this.editor = editor;
    this.fields = [];
    this.key = "";
  }

  // build makes the fields for the problem's request schema and the
  // editor's request (the count fields follow its lists); it rebuilds only
  // when the problem or the lists' lengths changed.
  async build(schemaPath) {
    let doc;
    try { doc = JSON.parse(this.editor.value); } catch { doc = undefined; }
    const fields = await fieldsOf(schemaPath, doc);
    const key = schemaPath + " " + fields.map((f) => f.pointer).join(",");
    if (key !== this.key) {
      this.key = key;
      this.fields = fields;
      this.box.replaceChildren(...fields.map((f) => this.control(f)));
    }
    this.fill(doc);
  }

  control(f) {
    const id = "field-" + f.pointer.slice(1).replaceAll("/", "-");
    const wrap = document.createElement("div");
    wrap.className = "field";
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = f.label;
    let input;
    if (f.kind === "enum") {
      input = document.createElement("select");
      input.append(new Option("(default" + (f.schema.default !== undefined ? ": " + f.schema.default : "") + ")", ""));
      for (const v of f.schema.enum) input.append(new Option(v, v));
    } else if (f.kind === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
    } else {
      input = document.createElement("input");
      input.type = "number";
      input.step = f.kind === "integer" ? "1" : "any";
      if (f.schema.minimum !== undefined) input.min = f.schema.minimum;
      if (f.schema.maximum !== undefined) input.max = f.schema.maximum;
      if (f.schema.default !== undefined) input.placeholder = "default " + f.schema.default;
    }
    input.id = id;
    input.dataset.pointer = f.pointer;
    if (f.schema.description) { input.title = f.schema.description; label.title = f.schema.description; }
    input.addEventListener("change", () => this.write(f, input));
    wrap.append(label, input);
    return wrap;
  }

  // fill shows the request's values in the fields (blank: not set, the
  // schema's default applies).
  fill(doc) {
    for (const f of this.fields) {
      const input = this.box.querySelector(`[data-pointer="${CSS.escape(f.pointer)}"]`);
      if (!input || input === document.activeElement) continue;
      const v = doc === undefined ? undefined : valueAt(doc, f.pointer);
      if (f.kind === "boolean") input.checked = v === true;
      else input.value = v === undefined || v === null ? "" : String(v);
    }
  }

  // write puts a field's value into the editor's text: in place of the
  // value it had (nothing else in the text changes), or as a new member of
  // its object when it had none; a blank field removes the member.
  write(f, input) {
    let text;
    if (f.kind === "boolean") text = String(input.checked);
    else if (f.kind === "enum") text = input.value === "" ? "" : JSON.stringify(input.value);
    else text = input.value.trim();
    if (text !== "" && f.kind !== "enum" && f.kind !== "boolean" && !Number.isFinite(Number(text))) return;
    const src = this.editor.value;
    let out = text === "" ? null : replaceValue(src, f.pointer, text);
    if (out === null) out = rewrite(src, f.pointer, text === "" ? undefined : JSON.parse(text));
    if (out === null) return;
    this.editor.value = out;
    this.editor.area.dispatchEvent(new Event("input"));
  }
}

// rewrite sets (or, with undefined, removes) a member by parsing and
// writing the whole text again (2-space indented): only where the value
// is not in the text yet, or is being removed.
function rewrite(src, pointer, value) {
  let doc;
  try { doc = JSON.parse(src); } catch { return null; }
  const keys = pointer.split("/").slice(1).map((k) => k.replaceAll("~1", "/").replaceAll("~0", "~"));
  let parent = doc;
  for (const k of keys.slice(0, -1)) {
    if (parent[k] === undefined) { if (value === undefined) return src; parent[k] = {}; }
    parent = parent[k];
  }
  if (value === undefined) delete parent[keys[keys.length - 1]];
  else parent[keys[keys.length - 1]] = value;
  return JSON.stringify(doc, null, 2) + "\n";
}

