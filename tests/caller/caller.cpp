/* The counted statements as C++. */
#include "statements.h"
