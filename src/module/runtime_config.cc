#include "module/runtime_config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "backend/thread_pool.h"
#include "base/error_util.h"
#include "memory/guard_fault.h"
#include "base/logging.h"

namespace aotrt {
namespace {

// The value of `name`, or nullptr when unset or empty (both mean "the default").
const char* Value(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

// "0" or "1"; `meaning_of_1` says what 1 does, for the message.
bool ParseFlag(const char* name, bool default_value, const char* meaning_of_1) {
  const char* v = Value(name);
  if (v == nullptr) return default_value;
  if (std::strcmp(v, "0") == 0) return false;
  if (std::strcmp(v, "1") == 0) return true;
  AOTRT_THROW(kInvalidArgument, name, "='", v, "': expected 0 or 1 (", meaning_of_1, ")");
}

// A whole number in [1, max]; 0 when unset. `what` names the quantity, for the message.
uint64_t ParseCount(const char* name, uint64_t max, const char* what) {
  const char* v = Value(name);
  if (v == nullptr) return 0;
  char* end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v, &end, 10);
  AOTRT_REQUIRE(errno == 0 && *end == '\0' && v[0] != '-' && v[0] != '+' && n > 0 && n <= max, kInvalidArgument, name,
                "='", v, "': expected a whole number from 1 to ", max, " (", what, ")");
  return n;
}

// What `parse()` returns, but for the process-wide variables a bad value is a warning, not an error
// (TVM ignores such thread counts): then the default (0, false).
template <typename Parse>
auto Lenient(Parse parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const Error& e) {
    AOTRT_LOG_WARN(e.what(), "; ignored");
    return {};
  }
}

int ParseThreadCount(const char* name) {
  return static_cast<int>(
      Lenient([name] { return ParseCount(name, kMaxParallelTasks, "threads of the operator thread pool"); }));
}

std::string DefaultCacheDirectory() {
  if (const char* v = Value("AOTRT_CACHE_DIR")) return v;
  const char* xdg = Value("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return StrCat(xdg, "/aotrt");  // relative values are ignored (XDG)
  if (const char* home = Value("HOME")) return StrCat(home, "/.cache/aotrt");
  return std::string();
}

// The process-wide variables, applied once when libaotrt is loaded (before main for a program
// linked with it): the logger's level, the thread pool's default size and the guard fault report.
__attribute__((constructor)) void ApplyProcessWideEnvironment() {
  if (const char* level = Value("AOTRT_LOG_LEVEL")) {
    int parsed = log::ParseLevel(level);
    if (parsed >= 0) {
      log::SetLevel(parsed);
    } else {
      AOTRT_LOG_WARN("AOTRT_LOG_LEVEL=", level,
                     " is not a level (trace, debug, info, warn, error, critical, off or 0..6); using warn");
    }
  }
  int threads = ParseThreadCount("TVM_NUM_THREADS");
  if (threads == 0) threads = ParseThreadCount("OMP_NUM_THREADS");
  SetEnvironmentNumThreads(threads);
  bool report = Lenient([] { return ParseFlag("AOTRT_REPORT_GUARD_FAULTS", false, "report writes into guard pages"); });
  if (report) ReportGuardFaults();
}

}  // namespace

RuntimeConfig RuntimeConfig::FromEnvironment() {
  RuntimeConfig c;
  c.constant_cache = ParseFlag("AOTRT_CONSTANT_CACHE", true, "share constant pools through the per-machine cache");
  c.verify_constant_cache =
      ParseFlag("AOTRT_CONSTANT_CACHE_VERIFY", false, "hash a cached constant pool whole at every load");
  c.cache_max_bytes = ParseCount("AOTRT_CACHE_MAX_MB", uint64_t{1} << 40, "MiB: the constant cache's size limit") << 20;
  c.cache_dir = DefaultCacheDirectory();
  c.check_bounds = ParseFlag("AOTRT_CHECK_BOUNDS", false, "check writes past workspace pools and blocks after every run");
  c.huge_pages = ParseFlag("AOTRT_HUGE_PAGES", false, "back large executor buffers with huge pages");
  if (const char* cc = Value("CC")) c.tools.c_compiler = cc;
  if (const char* tmp = Value("TMPDIR")) c.tools.temp_dir = tmp;
  return c;
}

LoadContext RuntimeConfig::MakeLoadContext(const LoadOptions& caller, std::string display_name) const {
  LoadContext ctx;
  ctx.options = caller;
  LoadOptions& o = ctx.options;
  o.constant_cache = o.constant_cache && constant_cache;
  o.verify_constant_cache = o.verify_constant_cache || verify_constant_cache;
  if (o.cache_dir.empty()) o.cache_dir = cache_dir;
  if (o.cache_max_bytes == 0) o.cache_max_bytes = cache_max_bytes;
  o.executor.check_bounds = o.executor.check_bounds || check_bounds;
  o.executor.huge_pages = o.executor.huge_pages || huge_pages;
  ctx.tools = tools;
  if (!caller.c_compiler.empty()) ctx.tools.c_compiler = caller.c_compiler;  // the caller's wins over CC
  ctx.display_name = std::move(display_name);
  return ctx;
}

LoadContext FrontDoorLoadContext(const LoadOptions& caller, std::string display_name) {
  return RuntimeConfig::FromEnvironment().MakeLoadContext(caller, std::move(display_name));
}

}  // namespace aotrt
