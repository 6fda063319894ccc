/* cases.h and strings.h compiled as C99: every call takes the variable argument list. */
#define CASES capture_cases_c99
#include "cases.h"
#define STRING_CASES capture_string_cases_c99
#include "strings.h"
