// Strict TypeScript against the types openapi-typescript generates from
// the served document (api.d.ts): every solve's 200 is its typed JSON
// answer, a typed request can be submitted as a job with typed patches,
// a wrong one cannot, and pictures are strings of their own operations.
import type { components, paths } from "./api";

type S = components["schemas"];

// The body of any 200 of a POST, whatever its media types: with JSON
// and SVG both offered this was "object or string".
type Answer<P extends keyof paths> = paths[P] extends { post: { responses: { 200: { content: infer C } } } } ? C[keyof C] : never;

export const cmmfMeta: S["common.meta"] = ({} as Answer<"/v1/cmmf">).meta;
export const flexMeta: S["common.meta"] = ({} as Answer<"/v1/flex">).meta;
export const selectMeta: S["common.meta"] = ({} as Answer<"/v1/xselect">).meta;
export const assignMeta: S["common.meta"] = ({} as Answer<"/v1/xschedule/assign">).meta;

declare const cmmf: S["cmmf.request"];
declare const flex: S["flex.request"];

// A typed request submitted as a job, with a typed patch.
export const job: S["jobs.submission"] = {
  problem: "cmmf",
  input: cmmf,
  variants: [{ name: "whole", patch: { divisible: false } }],
};
export const body: paths["/v1/jobs"]["post"]["requestBody"]["content"]["application/json"] = job;

// @ts-expect-error: a flex request is not a cmmf job's input.
export const wrongInput: S["jobs.submission"] = { problem: "cmmf", input: flex };

// @ts-expect-error: a patch names the request's fields only.
export const wrongPatch: S["jobs.patch.cmmf"] = { no_such_field: 1 };

// Pictures: SVG text from their own operations.
export const picture: string = "" as Answer<"/v1/cmmf/picture">;
export const jobPicture: string = "" as paths["/v1/jobs/{id}/picture"]["get"]["responses"][200]["content"]["image/svg+xml"];
