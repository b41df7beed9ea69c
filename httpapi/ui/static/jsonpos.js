// Where a JSON Pointer (RFC 6901) points in a JSON text: the server's
// errors name pointers, the editor shows lines. The scanner runs only on
// text JSON.parse accepted, so it need not report syntax errors.

const SPACE = " \t\r\n";

// escapeToken writes one pointer segment (~ as ~0, / as ~1).
function escapeToken(key) {
  return String(key).replaceAll("~", "~0").replaceAll("/", "~1");
}

// pointerOffsets maps every pointer of a valid JSON text to the offset
// where it starts: an object member at its key (so its line shows the
// name), an array element at its value.
export function pointerOffsets(text) {
  const out = new Map();
  let i = 0;
  const skip = () => { while (i < text.length && SPACE.includes(text[i])) i++; };
  const string = () => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const scalar = () => { while (i < text.length && !",]} \t\r\n".includes(text[i])) i++; };
  const members = (ptr) => {
    i++;
    for (skip(); text[i] !== "}";) {
      const at = i;
      const key = string();
      skip();
      i++; // the colon
      value(ptr + "/" + escapeToken(key), at);
      skip();
      if (text[i] === ",") { i++; skip(); }
    }
    i++;
  };
  const elements = (ptr) => {
    i++;
    skip();
    for (let n = 0; text[i] !== "]"; n++) {
      value(ptr + "/" + n);
      skip();
      if (text[i] === ",") { i++; skip(); }
    }
    i++;
  };
  function value(ptr, at) {
    skip();
    out.set(ptr, at ?? i);
    if (text[i] === "{") members(ptr);
    else if (text[i] === "[") elements(ptr);
    else if (text[i] === '"') string();
    else scalar();
  }
  value("");
  return out;
}

// lineOf is the 1-based line of offset in text.
export function lineOf(text, offset) {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === "\n") line++;
  return line;
}

// pointerLine is the line a pointer names in text: its own start, or,
// for a member that is missing (a required field, say), the start of its
// nearest existing parent. offsets comes from pointerOffsets.
export function pointerLine(text, offsets, pointer) {
  for (let p = pointer; ; p = p.slice(0, p.lastIndexOf("/"))) {
    if (offsets.has(p)) return lineOf(text, offsets.get(p));
    if (p === "") return 1;
  }
}

// syntaxErrorLine reads the position V8 gives in a JSON.parse error
// ("... at position 42 ...") and turns it into a line, or 0.
export function syntaxErrorLine(text, err) {
  const m = /position (\d+)/.exec(err.message);
  return m ? lineOf(text, Number(m[1])) : 0;
}

// valueEnd is the offset just past the JSON value starting at offset i of
// a valid JSON text (strings may hold brackets; they are skipped whole).
export function valueEnd(text, i) {
  const str = () => { i++; while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1; i++; };
  if (text[i] === '"') { str(); return i; }
  if (text[i] !== "{" && text[i] !== "[") {
    while (i < text.length && !",]} \t\r\n".includes(text[i])) i++;
    return i;
  }
  let depth = 0;
  do {
    const c = text[i];
    if (c === '"') { str(); continue; }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    i++;
  } while (depth > 0 && i < text.length);
  return i;
}

// valueSpan is [start, end) of the value a pointer names in a valid JSON
// text, or null when it names nothing. offsets comes from pointerOffsets
// (a member's offset is its key's; its value follows the colon).
export function valueSpan(text, offsets, pointer) {
  if (!offsets.has(pointer)) return null;
  let i = offsets.get(pointer);
  if (pointer !== "" && !inArray(text, offsets, pointer)) {
    i = valueEnd(text, i);
    while (SPACE.includes(text[i])) i++;
    i++; // the colon
    while (SPACE.includes(text[i])) i++;
  }
  return [i, valueEnd(text, i)];
}

// inArray reports whether a (non-root) pointer names an array element
// rather than an object member: its parent's value is an array.
function inArray(text, offsets, pointer) {
  const span = valueSpan(text, offsets, pointer.slice(0, pointer.lastIndexOf("/")));
  return span !== null && text[span[0]] === "[";
}

// memberTexts maps each member of a valid JSON object text to its value's
// text as written (numbers, order and spacing kept), so a scenario file's
// input and variants reach the editors unchanged, 1e400 included.
export function memberTexts(text) {
  const offsets = pointerOffsets(text);
  const out = new Map();
  for (const ptr of offsets.keys()) {
    if (ptr === "" || ptr.indexOf("/", 1) !== -1) continue;
    const span = valueSpan(text, offsets, ptr);
    const key = ptr.slice(1).replaceAll("~1", "/").replaceAll("~0", "~");
    if (span) out.set(key, text.slice(span[0], span[1]));
  }
  return out;
}

// replaceValue writes valueText in place of the value a pointer names in
// a valid JSON text, leaving every other character as it was; null when
// the pointer names nothing.
export function replaceValue(text, pointer, valueText) {
  const span = valueSpan(text, pointerOffsets(text), pointer);
  if (!span) return null;
  return text.slice(0, span[0]) + valueText + text.slice(span[1]);
}
