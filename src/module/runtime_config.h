// The environment, read in one place (README "Options and the environment": which variable, when
// read), where every load starts. No other file calls getenv (scripts/include_graph.py); the values
// reach the layers that use them as parameters (LoadContext, ExecutorOptions) or through the
// process-wide setters of the logger and thread pool.
#pragma once

#include <cstdint>
#include <string>

#include "aotrt/options.h"
#include "module/load_context.h"

namespace aotrt {

// What the environment says, before it is combined with a caller's options.
struct RuntimeConfig {
  // Load variables.
  bool constant_cache = true;         // AOTRT_CONSTANT_CACHE: 0 turns the cache off
  bool verify_constant_cache = false;  // AOTRT_CONSTANT_CACHE_VERIFY: 1 hashes cached pools whole
  uint64_t cache_max_bytes = 0;       // AOTRT_CACHE_MAX_MB, in bytes; 0 when unset
  std::string cache_dir;              // AOTRT_CACHE_DIR, else $XDG_CACHE_HOME/aotrt, else $HOME/.cache/aotrt, else ""
  bool check_bounds = false;          // AOTRT_CHECK_BOUNDS: 1 checks every executor's bounds
  bool huge_pages = false;            // AOTRT_HUGE_PAGES: 1 backs every executor's large buffers with huge pages
  ToolConfig tools;                   // CC (default cc), TMPDIR (default /tmp)

  // Reads every variable above once. Throws Error(kInvalidArgument) for an AOTRT_* variable with a
  // value it does not take, e.g. "AOTRT_CHECK_BOUNDS='yes': expected 0 or 1 (check writes past
  // workspace pools and blocks after every run)".
  static RuntimeConfig FromEnvironment();

  // The context of one load: `caller`'s options with this configuration's additions (a variable
  // turns a check on or the cache off, never the reverse; the caller's cache directory wins).
  LoadContext MakeLoadContext(const LoadOptions& caller, std::string display_name) const;
};

// The context of a load from a front door: RuntimeConfig::FromEnvironment().MakeLoadContext(...).
LoadContext FrontDoorLoadContext(const LoadOptions& caller, std::string display_name);

}  // namespace aotrt
