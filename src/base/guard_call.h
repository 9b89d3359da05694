// Moved to memory/guard_call.h (issue 35); this forwarding header goes once no file includes it here.
#pragma once
#include "memory/guard_call.h"
