/* A test plugin (plugin.h): "bravo", on another line than alpha's. */
#include "plugin.h"


PLUGIN_BODY(bravo)
