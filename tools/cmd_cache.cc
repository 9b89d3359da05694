// aotrt cache [list] [--dir DIR] [--json]   what the cache directory holds, its size against the limit
// aotrt cache clear [--dir DIR] [--wait-ms MS]   removes pools, aliases, archive libraries, temporaries
// A thin front end over aotrt/cache.h.
#include <ctime>
#include <iostream>

#include <aotrt/cache.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "table.h"

namespace aotrt_cli {
namespace {

struct CacheOptions {
  std::string dir;
  bool json = false;
  int wait_ms = 10000;
};

std::string LocalTime(int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  char buf[32];
  if (localtime_r(&t, &tm) == nullptr || std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm) == 0) return "?";
  return buf;
}

// What the entry is about: a pool's model, an alias's pool, or why it is unusable.
std::string About(const aotrt::CacheEntry& e) {
  switch (e.kind) {
    case aotrt::CacheEntryKind::kConstantPool:
      return e.valid ? e.model : "damaged: rebuilt at its next use";
    case aotrt::CacheEntryKind::kAlias:
      return e.valid ? "-> " + e.target : "-> " + e.target + " (missing: rebuilt at its next use)";
    case aotrt::CacheEntryKind::kTemporary:
      return "a writer's (removed by the next writer if its writer is gone)";
    default:
      return "";
  }
}

int List(const CacheOptions& o) {
  aotrt::CacheListing l = aotrt::ListCache(o.dir);
  if (o.json) {
    nlohmann::ordered_json entries = nlohmann::ordered_json::array();
    for (const auto& e : l.entries) {
      entries.push_back({{"name", e.name}, {"kind", aotrt::CacheEntryKindName(e.kind)}, {"bytes", e.bytes},
                         {"last_used", e.last_used}, {"model", e.model}, {"target", e.target}, {"valid", e.valid}});
    }
    nlohmann::ordered_json out = {{"directory", l.directory}, {"exists", l.exists},
                                  {"pool_bytes", l.pool_bytes}, {"total_bytes", l.total_bytes},
                                  {"max_bytes", l.max_bytes}, {"entries", entries}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "cache directory: " << l.directory << (l.exists ? "" : " (does not exist yet: nothing cached)") << "\n";
  if (!l.entries.empty()) {
    Table t({"kind", "size", "last used", "name", "model / target"}, {false, true, false, false, false});
    for (const auto& e : l.entries) {
      if (e.kind == aotrt::CacheEntryKind::kLock) continue;
      t.AddRow({aotrt::CacheEntryKindName(e.kind), Bytes(e.bytes), LocalTime(e.last_used), e.name, About(e)});
    }
    t.Print(std::cout, "  ");
  }
  std::cout << "constant pools: " << Bytes(l.pool_bytes) << " of the " << Bytes(l.max_bytes)
            << " limit (least recently used removed beyond it; AOTRT_CACHE_MAX_MB); everything: "
            << Bytes(l.total_bytes) << "\n";
  return 0;
}

int Clear(const CacheOptions& o) {
  std::string dir = o.dir.empty() ? aotrt::CacheDirectory() : o.dir;
  aotrt::CacheClearResult r = aotrt::ClearCache(dir, o.wait_ms);
  std::cout << "removed " << r.files_removed << " files (" << Bytes(r.bytes_removed) << ") from " << dir << "\n";
  return 0;
}

}  // namespace

CLI::App* AddCacheCommand(CLI::App& app, Action* run) {
  auto o = std::make_shared<CacheOptions>();
  CLI::App* cmd = app.add_subcommand(
      "cache", "List the per-machine cache (constant pools, their aliases, compiled archives), or clear it");
  const char* dir_help = "Cache directory (default: as a load resolves it: AOTRT_CACHE_DIR, $XDG_CACHE_HOME/aotrt, "
                         "~/.cache/aotrt)";
  cmd->add_option("--dir", o->dir, dir_help);
  cmd->add_flag("--json", o->json, "Print JSON (list)");
  CLI::App* list = cmd->add_subcommand("list", "Each file: kind, size, last use, model or target (the default)");
  list->add_option("--dir", o->dir, dir_help);
  list->add_flag("--json", o->json, "Print JSON");
  CLI::App* clear = cmd->add_subcommand("clear", "Remove every cached file, under the directory lock");
  clear->add_option("--dir", o->dir, dir_help);
  clear->add_option("--wait-ms", o->wait_ms, "Longest wait for a writer holding the lock")
      ->check(CLI::NonNegativeNumber);
  cmd->require_subcommand(0, 1);
  *run = [o, clear] { return clear->parsed() ? Clear(*o) : List(*o); };
  return cmd;
}

}  // namespace aotrt_cli
