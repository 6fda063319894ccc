/* A test plugin (plugin.h): "alpha". */
#include "plugin.h"

PLUGIN_BODY(alpha)
