//go:build cgo

#include <Coin_C_defines.h>

#ifdef __cplusplus
extern "C" {
#endif

// cbcSolve is Cbc_solve with CLP's interrupt handling (ClpSolve special
// option 2) switched off in model's LP solver; CBC copies that setting into
// every solver it clones from it. See clpInitialSolve in coin.go.
int cbcSolve(Cbc_Model *model);

#ifdef __cplusplus
}
#endif
