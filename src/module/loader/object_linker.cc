#include "module/loader/object_linker.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/error_util.h"
#include "base/temp_dir.h"
#include "module/loader/archive_reader.h"
#include "module/loader/shared_library.h"

extern char** environ;

namespace aotrt {

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
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
  AOTRT_THROW(kIOError, why, ": `", command, "` failed (", WIFEXITED(status) ? "exit " : "signal ",
              WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), "): ", ReadFileBytes(log));
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
  TempDir tmp(tools.temp_dir, "aotrt-link-");
  const std::string log = tmp.path() + "/tool.log";
  std::vector<std::string> objects;
  if (format == "tar") {
    // The archive's objects and C sources, read in memory (checked as archive_reader.h says), then
    // written into the private folder for the compiler.
    ArchiveContents tar = ReadArchive(path, [](const std::string& m) { return EndsWith(m, ".o") || EndsWith(m, ".c"); });
    AOTRT_REQUIRE(!tar.files.empty(), kNotFound, path, ": the archive holds no object files (.o) nor C sources (.c)");
    for (const auto& [name, bytes] : tar.files) {
      tmp.Write(name, bytes);
      if (EndsWith(name, ".o")) objects.push_back(tmp.path() + "/" + name);
    }
    for (const auto& [name, bytes] : tar.files) {
      if (EndsWith(name, ".c")) objects.push_back(CompileSource(tools.c_compiler, tmp.path() + "/" + name, log));
    }
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
