// Fixture: a lower room reaching a higher one through a public header.
#include "aotrt/profiling.h"
