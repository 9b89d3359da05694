// Moved to memory/zeroed_memory.h (issue 35); this forwarding header goes once no file includes it here.
#pragma once
#include "memory/zeroed_memory.h"
