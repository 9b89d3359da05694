#include "module/loader/object_linker.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/error_util.h"
#include "module/loader/elf_file.h"

extern char** environ;

namespace aotrt {
namespace {

// A private temporary directory, removed with its (flat) contents on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& base) {
    std::string tmpl = base + "/aotrt-link-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    AOTRT_REQUIRE(::mkdtemp(buf.data()) != nullptr, kIOError, "cannot create a temporary directory ", tmpl, ": ",
                  std::strerror(errno));
    path_ = buf.data();
  }
  ~TempDir() {
    for (const std::string& f : Files("")) ::unlink((path_ + "/" + f).c_str());
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  // Names of the entries ending in `suffix`, sorted.
  std::vector<std::string> Files(const std::string& suffix) const {
    std::vector<std::string> out;
    if (DIR* d = ::opendir(path_.c_str())) {
      while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n != "." && n != ".." && n.size() >= suffix.size() &&
            n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) {
          out.push_back(n);
        }
      }
      ::closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::string path_;
};

std::string Join(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

void RunTool(const std::vector<std::string>& argv, const std::string& log, const std::string& why,
             const std::string& missing_hint) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  int err = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  AOTRT_REQUIRE(err != ENOENT || missing_hint.empty(), kNotFound, why, ": cannot run `", argv[0], "`: ",
                std::strerror(err), ": ", missing_hint);
  AOTRT_REQUIRE(err == 0, kIOError, why, ": cannot run `", argv[0], "`: ", std::strerror(err));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::ifstream in(log);
  std::stringstream output;
  output << in.rdbuf();
  AOTRT_THROW(kIOError, why, ": `", Join(argv), "` failed (", WIFEXITED(status) ? "exit " : "signal ",
              WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), "): ", output.str());
}

namespace {

// A C source of the archive compiled to an object beside it. TVM v0.9/v0.10 `c` exports carry
// the blob as devc.c (ABI.md 5), and `c` targets their code as lib<i>.c; TVM's load_module built
// them with g++, so a source that is not C (a system-lib devc.c registers its blob from a C++
// static initializer) is compiled again as C++. Throws kIOError with both attempts' output.
std::string CompileSource(const std::string& cc, const std::string& source, const std::string& log) {
  const std::string object = source + ".o";
  try {
    RunTool({cc, "-c", "-fPIC", "-o", object, source}, log, "compiling " + source + " as C");
  } catch (const Error& as_c) {
    try {
      RunTool({cc, "-x", "c++", "-c", "-fPIC", "-o", object, source}, log, "compiling " + source + " as C++");
    } catch (const Error& as_cxx) {
      AOTRT_THROW(kIOError, as_c.what(), "; ", as_cxx.what());
    }
  }
  return object;
}

}  // namespace

std::shared_ptr<SymbolSource> OpenObjectFiles(const std::string& path, const std::string& format,
                                              const ToolConfig& tools) {
  AOTRT_REQUIRE(::access(path.c_str(), R_OK) == 0, kNotFound, path, ": no such file");
  TempDir tmp(tools.temp_dir);
  const std::string log = tmp.path() + "/tool.log";
  std::vector<std::string> objects;
  const std::string& cc = tools.c_compiler;
  if (format == "tar") {
    RunTool({"tar", "-xf", path, "-C", tmp.path()}, log, "extracting " + path);
    std::vector<std::string> sources = tmp.Files(".c");
    for (const std::string& f : tmp.Files(".o")) objects.push_back(tmp.path() + "/" + f);
    AOTRT_REQUIRE(!objects.empty() || !sources.empty(), kNotFound, path,
                  ": the archive holds no object files (.o) nor C sources (.c)");
    for (const std::string& f : sources) objects.push_back(CompileSource(cc, tmp.path() + "/" + f, log));
  } else {
    objects.push_back(path);
  }
  // Another processor's objects are refused by name before the linker fails on them obscurely.
  for (const std::string& o : objects) {
    CheckElfObjectFile(o, format == "tar" ? path + "'s " + o.substr(tmp.path().size() + 1) : path);
  }
  std::vector<std::string> argv = {tools.c_compiler, "-shared", "-o", tmp.path() + "/model.so"};
  argv.insert(argv.end(), objects.begin(), objects.end());
  RunTool(argv, log, "linking " + path + " into a shared library");
  // Loaded, the library no longer needs its file: the temporary directory goes with `tmp`.
  return OpenSharedLibrary(tmp.path() + "/model.so", path);
}

}  // namespace aotrt
