/* The counted statements as C: C11 (the call site captures its arguments)
 * and C99 (the variable argument list), built from this one file. */
#include "statements.h"
