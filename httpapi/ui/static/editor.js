// A JSON editor: a textarea over a backdrop that marks the lines the
// server's errors point at, with the errors listed beside it (pointer,
// message, and a button that moves the caret to the line).
import { pointerOffsets, pointerLine, syntaxErrorLine } from "./jsonpos.js";

export class Editor {
  constructor(textarea, errorBox) {
    this.area = textarea;
    this.box = errorBox;
    this.backdrop = textarea.parentElement.querySelector(".backdrop");
    textarea.setAttribute("wrap", "off");
    textarea.addEventListener("input", () => this.clearErrors());
    textarea.addEventListener("scroll", () => this.syncScroll());
  }

  get value() { return this.area.value; }

  set value(text) {
    this.area.value = text;
    this.clearErrors();
  }

  // parse returns the editor's JSON, or shows where it is broken and
  // returns undefined.
  parse() {
    try {
      return JSON.parse(this.area.value);
    } catch (err) {
      const line = syntaxErrorLine(this.area.value, err);
      this.showErrors([{ pointer: null, line, message: "not valid JSON: " + err.message }]);
      return undefined;
    }
  }

  // showErrors lists errors ({pointer, message}; a pointer into this
  // editor's document, or null) beside the editor and marks their lines.
  showErrors(errors) {
    const text = this.area.value;
    let offsets = null;
    try { JSON.parse(text); offsets = pointerOffsets(text); } catch { /* lines unknown */ }
    const located = errors.map((e) => ({
      ...e,
      line: e.line ?? (offsets && e.pointer !== null ? pointerLine(text, offsets, e.pointer) : 0),
    }));
    this.box.replaceChildren(this.errorList(located));
    this.markLines(new Set(located.map((e) => e.line).filter((n) => n > 0)));
    this.area.setAttribute("aria-invalid", "true");
  }

  errorList(errors) {
    const ul = document.createElement("ul");
    for (const e of errors) {
      const li = document.createElement("li");
      if (e.line > 0) li.append(this.lineButton(e.line), " ");
      if (e.pointer !== null && e.pointer !== undefined) {
        const code = document.createElement("code");
        code.className = "pointer";
        code.textContent = e.pointer === "" ? "(whole document)" : e.pointer;
        li.append(code, " ");
      }
      const msg = document.createElement("span");
      msg.className = "message";
      msg.textContent = e.message;
      li.append(msg);
      ul.append(li);
    }
    return ul;
  }

  lineButton(line) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "line";
    b.textContent = "line " + line;
    b.addEventListener("click", () => this.goToLine(line));
    return b;
  }

  // markLines renders the backdrop: the text, with the lines in marked
  // wrapped in <mark>.
  markLines(marked) {
    const lines = this.area.value.split("\n");
    const parts = lines.map((text, i) => {
      if (!marked.has(i + 1)) return document.createTextNode(text + "\n");
      const m = document.createElement("mark");
      m.className = "error-line";
      m.dataset.line = String(i + 1);
      m.textContent = text + "\n";
      return m;
    });
    this.backdrop.replaceChildren(...parts);
    this.syncScroll();
  }

  clearErrors() {
    this.box.replaceChildren();
    this.backdrop.replaceChildren();
    this.area.removeAttribute("aria-invalid");
  }

  syncScroll() {
    this.backdrop.scrollTop = this.area.scrollTop;
    this.backdrop.scrollLeft = this.area.scrollLeft;
  }

  // goToLine selects line n (1-based) and scrolls it into view.
  goToLine(n) {
    const lines = this.area.value.split("\n");
    const start = lines.slice(0, n - 1).reduce((s, l) => s + l.length + 1, 0);
    this.area.focus();
    this.area.setSelectionRange(start, start + (lines[n - 1] ?? "").length);
    const lineHeight = this.area.scrollHeight / Math.max(lines.length, 1);
    this.area.scrollTop = Math.max(0, (n - 3) * lineHeight);
    this.syncScroll();
  }
}
