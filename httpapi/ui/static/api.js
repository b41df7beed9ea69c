// The public API as the page calls it: every call carries the tab's
// token (if any) as Authorization: Bearer, like any other client.

const TOKEN_KEY = "xflex.token";
export const SVG = "image/svg+xml";

export function token() { return sessionStorage.getItem(TOKEN_KEY) ?? ""; }

export function setToken(t) {
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  else sessionStorage.removeItem(TOKEN_KEY);
}

// call sends one request; body (JSON text) goes as it is. It resolves to
// the Response whatever its status; a network failure becomes a
// problem-shaped error the page shows.
export async function call(method, path, { body, accept } = {}) {
  const headers = { Accept: accept ?? "application/json" };
  if (token()) headers.Authorization = "Bearer " + token();
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = body;
  }
  try {
    return await fetch(path, init);
  } catch (err) {
    throw new ApiError({ title: "Server unreachable", detail: String(err.message ?? err), status: 0 });
  }
}

// ApiError carries a problem+json document (RFC 9457 with "errors").
export class ApiError extends Error {
  constructor(problem) {
    super(problem.title + (problem.detail ? ": " + problem.detail : ""));
    this.problem = problem;
  }
}

// problemOf reads a failed response as a problem document.
export async function problemOf(resp) {
  const text = await resp.text();
  try {
    const doc = JSON.parse(text);
    if (doc && typeof doc === "object") return { status: resp.status, ...doc };
  } catch { /* not JSON: fall through */ }
  return { status: resp.status, title: resp.statusText || "HTTP " + resp.status, detail: text.slice(0, 300) };
}

// json calls and returns the parsed body of a 2xx answer; any other
// answer throws an ApiError with the server's problem document.
export async function json(method, path, opts) {
  const resp = await call(method, path, opts);
  if (!resp.ok) throw new ApiError(await problemOf(resp));
  return { status: resp.status, doc: await resp.json() };
}
