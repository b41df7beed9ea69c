package client

import "context"

// One typed method per problem: X solves (POST /v1/NAME), XPicture draws
// the answer (POST /v1/NAME/picture, SVG bytes) and SubmitX queues it as
// a job (POST /v1/jobs; its Problem is filled in when empty). A new
// problem gets its three methods here and its line in the tests' list.

// Cmmf solves a cmmf request (POST /v1/cmmf).
func (a *API) Cmmf(ctx context.Context, req CmmfRequest) (*CmmfResponse, error) {
	r, err := a.Raw.SolveCmmfWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// CmmfPicture returns the SVG picture of a cmmf request's answer.
func (a *API) CmmfPicture(ctx context.Context, req CmmfRequest) ([]byte, error) {
	r, err := a.Raw.PictureCmmfWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}

// SubmitCmmf queues a cmmf job (a scenario when job has variants).
func (a *API) SubmitCmmf(ctx context.Context, job JobsSubmitCmmf, opts ...SubmitOption) (*JobsJob, error) {
	if job.Problem == "" {
		job.Problem = "cmmf"
	}
	return submitAs(ctx, a, job, (*JobsSubmission).FromJobsSubmitCmmf, opts)
}

// Flex solves a flex request (POST /v1/flex).
func (a *API) Flex(ctx context.Context, req FlexRequest) (*FlexResponse, error) {
	r, err := a.Raw.SolveFlexWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// FlexPicture returns the SVG picture of a flex request's answer.
func (a *API) FlexPicture(ctx context.Context, req FlexRequest) ([]byte, error) {
	r, err := a.Raw.PictureFlexWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}

// SubmitFlex queues a flex job (a scenario when job has variants).
func (a *API) SubmitFlex(ctx context.Context, job JobsSubmitFlex, opts ...SubmitOption) (*JobsJob, error) {
	if job.Problem == "" {
		job.Problem = "flex"
	}
	return submitAs(ctx, a, job, (*JobsSubmission).FromJobsSubmitFlex, opts)
}

// Fairshare solves a fairshare request (POST /v1/fairshare).
func (a *API) Fairshare(ctx context.Context, req FairshareRequest) (*FairshareResponse, error) {
	r, err := a.Raw.SolveFairshareWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// FairsharePicture returns the SVG picture of a fairshare request's answer.
func (a *API) FairsharePicture(ctx context.Context, req FairshareRequest) ([]byte, error) {
	r, err := a.Raw.PictureFairshareWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}

// SubmitFairshare queues a fairshare job (a scenario when job has variants).
func (a *API) SubmitFairshare(ctx context.Context, job JobsSubmitFairshare, opts ...SubmitOption) (*JobsJob, error) {
	if job.Problem == "" {
		job.Problem = "fairshare"
	}
	return submitAs(ctx, a, job, (*JobsSubmission).FromJobsSubmitFairshare, opts)
}

// Xsize solves a xsize request (POST /v1/xsize).
func (a *API) Xsize(ctx context.Context, req XsizeRequest) (*XsizeResponse, error) {
	r, err := a.Raw.SolveXsizeWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// XsizePicture returns the SVG picture of a xsize request's answer.
func (a *API) XsizePicture(ctx context.Context, req XsizeRequest) ([]byte, error) {
	r, err := a.Raw.PictureXsizeWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}

// SubmitXsize queues a xsize job (a scenario when job has variants).
func (a *API) SubmitXsize(ctx context.Context, job JobsSubmitXsize, opts ...SubmitOption) (*JobsJob, error) {
	if job.Problem == "" {
		job.Problem = "xsize"
	}
	return submitAs(ctx, a, job, (*JobsSubmission).FromJobsSubmitXsize, opts)
}

// Xselect solves a xselect request (POST /v1/xselect).
func (a *API) Xselect(ctx context.Context, req XselectRequest) (*XselectResponse, error) {
	r, err := a.Raw.SolveXselectWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// XselectPicture returns the SVG picture of a xselect request's answer.
func (a *API) XselectPicture(ctx context.Context, req XselectRequest) ([]byte, error) {
	r, err := a.Raw.PictureXselectWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}

// SubmitXselect queues a xselect job (a scenario when job has variants).
func (a *API) SubmitXselect(ctx context.Context, job JobsSubmitXselect, opts ...SubmitOption) (*JobsJob, error) {
	if job.Problem == "" {
		job.Problem = "xselect"
	}
	return submitAs(ctx, a, job, (*JobsSubmission).FromJobsSubmitXselect, opts)
}

// TetrisAssign solves a tetris/assign request (POST /v1/tetris/assign).
func (a *API) TetrisAssign(ctx context.Context, req TetrisAssignRequest) (*TetrisAssignResponse, error) {
	r, err := a.Raw.SolveTetrisAssignWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// TetrisAssignPicture returns the SVG picture of a tetris/assign request's answer.
func (a *API) TetrisAssignPicture(ctx context.Context, req TetrisAssignRequest) ([]byte, error) {
	r, err := a.Raw.PictureTetrisAssignWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}

// SubmitTetrisAssign queues a tetris/assign job (a scenario when job has variants).
func (a *API) SubmitTetrisAssign(ctx context.Context, job JobsSubmitTetrisAssign, opts ...SubmitOption) (*JobsJob, error) {
	if job.Problem == "" {
		job.Problem = "tetris/assign"
	}
	return submitAs(ctx, a, job, (*JobsSubmission).FromJobsSubmitTetrisAssign, opts)
}

// TetrisSimulate solves a tetris/simulate request (POST /v1/tetris/simulate).
func (a *API) TetrisSimulate(ctx context.Context, req TetrisSimulateRequest) (*TetrisSimulateResponse, error) {
	r, err := a.Raw.SolveTetrisSimulateWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// TetrisSimulatePicture returns the SVG picture of a tetris/simulate request's answer.
func (a *API) TetrisSimulatePicture(ctx context.Context, req TetrisSimulateRequest) ([]byte, error) {
	r, err := a.Raw.PictureTetrisSimulateWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}

// SubmitTetrisSimulate queues a tetris/simulate job (a scenario when job has variants).
func (a *API) SubmitTetrisSimulate(ctx context.Context, job JobsSubmitTetrisSimulate, opts ...SubmitOption) (*JobsJob, error) {
	if job.Problem == "" {
		job.Problem = "tetris/simulate"
	}
	return submitAs(ctx, a, job, (*JobsSubmission).FromJobsSubmitTetrisSimulate, opts)
}

// XscheduleAssign solves a xschedule/assign request (POST /v1/xschedule/assign).
func (a *API) XscheduleAssign(ctx context.Context, req XscheduleAssignRequest) (*XscheduleAssignResponse, error) {
	r, err := a.Raw.SolveXscheduleAssignWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// XscheduleAssignPicture returns the SVG picture of a xschedule/assign request's answer.
func (a *API) XscheduleAssignPicture(ctx context.Context, req XscheduleAssignRequest) ([]byte, error) {
	r, err := a.Raw.PictureXscheduleAssignWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}

// SubmitXscheduleAssign queues a xschedule/assign job (a scenario when job has variants).
func (a *API) SubmitXscheduleAssign(ctx context.Context, job JobsSubmitXscheduleAssign, opts ...SubmitOption) (*JobsJob, error) {
	if job.Problem == "" {
		job.Problem = "xschedule/assign"
	}
	return submitAs(ctx, a, job, (*JobsSubmission).FromJobsSubmitXscheduleAssign, opts)
}

// XscheduleSimulate solves a xschedule/simulate request (POST /v1/xschedule/simulate).
func (a *API) XscheduleSimulate(ctx context.Context, req XscheduleSimulateRequest) (*XscheduleSimulateResponse, error) {
	r, err := a.Raw.SolveXscheduleSimulateWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// XscheduleSimulatePicture returns the SVG picture of a xschedule/simulate request's answer.
func (a *API) XscheduleSimulatePicture(ctx context.Context, req XscheduleSimulateRequest) ([]byte, error) {
	r, err := a.Raw.PictureXscheduleSimulateWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}

// SubmitXscheduleSimulate queues a xschedule/simulate job (a scenario when job has variants).
func (a *API) SubmitXscheduleSimulate(ctx context.Context, job JobsSubmitXscheduleSimulate, opts ...SubmitOption) (*JobsJob, error) {
	if job.Problem == "" {
		job.Problem = "xschedule/simulate"
	}
	return submitAs(ctx, a, job, (*JobsSubmission).FromJobsSubmitXscheduleSimulate, opts)
}

// XflexPlan solves a xflex/plan request (POST /v1/xflex/plan).
func (a *API) XflexPlan(ctx context.Context, req XflexPlanRequest) (*XflexPlanResponse, error) {
	r, err := a.Raw.SolveXflexPlanWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return typedAnswer(r.HTTPResponse, r.Body, r.JSON200, nil)
}

// XflexPlanPicture returns the SVG picture of a xflex/plan request's answer.
func (a *API) XflexPlanPicture(ctx context.Context, req XflexPlanRequest) ([]byte, error) {
	r, err := a.Raw.PictureXflexPlanWithResponse(ctx, req)
	if err != nil {
		return nil, err
	}
	return picture(r.HTTPResponse, r.Body, nil)
}

// SubmitXflexPlan queues a xflex/plan job (a scenario when job has variants).
func (a *API) SubmitXflexPlan(ctx context.Context, job JobsSubmitXflexPlan, opts ...SubmitOption) (*JobsJob, error) {
	if job.Problem == "" {
		job.Problem = "xflex/plan"
	}
	return submitAs(ctx, a, job, (*JobsSubmission).FromJobsSubmitXflexPlan, opts)
}
