// Moved to memory/tail_slack.h (issue 35); this forwarding header goes once no file includes it here.
#pragma once
#include "memory/tail_slack.h"
