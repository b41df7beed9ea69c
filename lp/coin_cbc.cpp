//go:build cgo

// The one piece of the COIN-OR binding written in C++: CBC's C interface
// cannot reach the options of the CLP solver that CBC runs inside.

#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <OsiClpSolverInterface.hpp>
// With CBC_EXTERN_C the header defines Cbc_Model as the struct that
// Cbc_C_Interface.cpp itself is compiled with.
#define CBC_EXTERN_C
#include <Coin_C_defines.h>
#include <Cbc_C_Interface.h>

#include "coin_cbc.h"

int cbcSolve(Cbc_Model *model)
{
  OsiClpSolverInterface *solver = dynamic_cast< OsiClpSolverInterface * >(model->model_->solver());
  if (solver != NULL) {
    // OsiClpSolverInterface has no getter for its solve options; they
    // are ClpSolve's defaults (neither it nor CbcMain0 changes them).
    ClpSolve options;
    options.setSpecialOption(2, 1); // no SIGINT handler
    solver->setSolveOptions(options);
  }
  return Cbc_solve(model);
}
