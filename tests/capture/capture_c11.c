/* cases.h compiled as C11: scalar arguments captured at the call site. */
#define CASES capture_cases_c11
#include "cases.h"
