#include "private_memory.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace aotrt_bench {
namespace {

constexpr double kKiBPerMiB = 1024.0;
constexpr unsigned long long kLargeAnonymousBytes = 64 * 1024;

struct Mapping {
  unsigned long long begin = 0, bytes = 0;
  bool writable = false;
  std::string name;  // the path, [heap], [stack], or empty for anonymous
  double private_kb = 0;
};

// `file_end`: where the last file-backed mapping ended; an anonymous mapping right after a file's
// is that file's .bss (the loader maps it apart), not memory the program allocated.
void Add(const Mapping& m, const std::string& model, unsigned long long file_end, PrivateBreakdown* out) {
  double mib = m.private_kb / kKiBPerMiB;
  if (m.name.empty() && m.begin == file_end) {
    out->library_data += mib;
  } else if (m.name.empty()) {
    (m.bytes >= kLargeAnonymousBytes ? out->large_anonymous : out->heap) += mib;
  } else if (m.name == "[heap]") {
    out->heap += mib;
  } else if (m.name == "[stack]") {
    out->stack += mib;
  } else if (m.name[0] == '[') {
    out->heap += mib;  // [vvar], [vdso], [anon:...]
  } else if (m.name == model) {
    out->model_file += mib;
  } else {
    (m.writable ? out->library_data : out->library_text) += mib;
  }
}

}  // namespace

PrivateBreakdown ReadPrivateBreakdown(pid_t pid, const std::string& model_path) {
  PrivateBreakdown out;
  std::error_code ec;
  std::string model = std::filesystem::canonical(model_path, ec).string();
  std::string path = "/proc/" + std::to_string(pid) + "/smaps";
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return out;
  Mapping m;
  bool have = false;
  unsigned long long file_end = 0, last_file_end = 0;
  char line[1024];
  while (std::fgets(line, sizeof line, f)) {
    unsigned long long begin = 0, end = 0;
    char perms[8] = {0};
    int name_at = 0;
    // A mapping's header: "begin-end perms offset dev inode [name]".
    if (std::sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &begin, &end, perms, &name_at) == 3 && name_at > 0) {
      if (have) Add(m, model, last_file_end, &out);
      last_file_end = file_end;
      m = Mapping();
      have = true;
      m.begin = begin;
      m.bytes = end - begin;
      m.writable = perms[1] == 'w';
      m.name = line + name_at;
      while (!m.name.empty() && (m.name.back() == '\n' || m.name.back() == ' ')) m.name.pop_back();
      file_end = !m.name.empty() && m.name[0] != '[' ? end : 0;
      continue;
    }
    double kb = 0;
    if (std::sscanf(line, "Private_Clean: %lf", &kb) == 1 || std::sscanf(line, "Private_Dirty: %lf", &kb) == 1) {
      m.private_kb += kb;
    }
  }
  if (have) Add(m, model, last_file_end, &out);
  std::fclose(f);
  return out;
}

double SmapsRollupMiB(pid_t pid, const std::vector<std::string>& fields) {
  std::string path = "/proc/" + std::to_string(pid) + "/smaps_rollup";
  double kb = 0;
  if (FILE* f = std::fopen(path.c_str(), "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      for (const std::string& name : fields) {
        if (std::strncmp(line, name.c_str(), name.size()) == 0 && line[name.size()] == ':') {
          kb += std::atof(line + name.size() + 1);
        }
      }
    }
    std::fclose(f);
  }
  return kb / kKiBPerMiB;
}

}  // namespace aotrt_bench
