// Fixture: aot/ including base/ is allowed.
#include "base/upward.h"
