#include "module/object_linker.h"

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

extern char** environ;

namespace aotrt {
namespace {

// A private temporary directory, removed with its (flat) contents on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/aotrt-link-XXXXXX";
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

std::shared_ptr<SymbolSource> OpenObjectFiles(const std::string& path, const std::string& format) {
  AOTRT_REQUIRE(::access(path.c_str(), R_OK) == 0, kNotFound, path, ": no such file");
  TempDir tmp;
  const std::string log = tmp.path() + "/tool.log";
  std::vector<std::string> objects;
  if (format == "tar") {
    RunTool({"tar", "-xf", path, "-C", tmp.path()}, log, "extracting " + path);
    for (const std::string& f : tmp.Files(".o")) objects.push_back(tmp.path() + "/" + f);
    AOTRT_REQUIRE(!objects.empty(), kNotFound, path, ": the archive holds no object files (.o)");
  } else {
    objects.push_back(path);
  }
  const char* cc = std::getenv("CC");
  std::vector<std::string> argv = {cc && *cc ? cc : "cc", "-shared", "-o", tmp.path() + "/model.so"};
  argv.insert(argv.end(), objects.begin(), objects.end());
  RunTool(argv, log, "linking " + path + " into a shared library");
  // Loaded, the library no longer needs its file: the temporary directory goes with `tmp`.
  return OpenSharedLibrary(tmp.path() + "/model.so", path);
}

}  // namespace aotrt
