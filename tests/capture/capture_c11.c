/* cases.h and strings.h compiled as C11: arguments captured at the call site. */
#define CASES capture_cases_c11
#include "cases.h"
#define STRING_CASES capture_string_cases_c11
#include "strings.h"
