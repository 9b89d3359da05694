// Fixture: a base/ header reaching up into aot/ (include_graph.py must reject it).
#include "aot/factory.h"
