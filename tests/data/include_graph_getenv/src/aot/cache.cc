// Fixture: configuration read below the top.
#include <cstdlib>
const char* Dir() { return std::getenv("AOTRT_CACHE_DIR"); }
