#include "output_files.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include <aotrt/error.h>

#include "npy.h"
#include "npz.h"
#include "model_io.h"

namespace aotrt_cli {
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& why) {
  throw aotrt::Error(aotrt::ErrorCode::kIOError, "-o " + path + ": " + why);
}

bool IsDir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void MakeDirs(const std::string& dir) {  // mkdir -p
  if (dir.empty() || IsDir(dir)) return;
  size_t slash = dir.find_last_of('/', dir.size() > 1 ? dir.size() - 2 : 0);
  if (slash != std::string::npos && slash > 0) MakeDirs(dir.substr(0, slash));
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) Fail(dir, std::string("cannot create: ") + std::strerror(errno));
  if (!IsDir(dir)) Fail(dir, "exists and is not a directory");
}

void CheckWritableDir(const std::string& dir, const std::string& what) {
  if (!IsDir(dir)) Fail(what, "folder " + dir + " does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) Fail(what, "folder " + dir + " is not writable: " + std::strerror(errno));
}

}  // namespace

OutputTarget PrepareOutputTarget(const std::string& arg) {
  OutputTarget t{arg, IsNpzPath(arg)};
  if (t.npz) {
    if (IsDir(arg)) Fail(arg, "is a directory, expected a .npz file to write");
    size_t slash = arg.find_last_of('/');
    CheckWritableDir(slash == std::string::npos ? "." : (slash == 0 ? "/" : arg.substr(0, slash)), arg);
  } else {
    struct stat st {};
    if (::stat(arg.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) Fail(arg, "exists and is not a directory");
    MakeDirs(arg);
    CheckWritableDir(arg, arg);
  }
  return t;
}

void WriteOutputs(const OutputTarget& target, const aotrt::Executor& ex, std::ostream& log) {
  if (target.npz) {
    std::vector<aotrt::NDArray> outs;
    std::vector<std::pair<std::string, const DLTensor*>> named;
    for (size_t i = 0; i < ex.NumOutputs(); ++i) outs.push_back(HostOutput(ex, i));
    for (size_t i = 0; i < outs.size(); ++i) named.emplace_back(ex.Output(i).name, &outs[i].tensor());
    WriteNpz(target.path, named);
    log << "wrote " << target.path << " (" << outs.size() << " outputs)\n";
    return;
  }
  for (size_t i = 0; i < ex.NumOutputs(); ++i) {
    std::string file = target.path + "/output" + std::to_string(i) + ".npy";
    WriteNpy(file, HostOutput(ex, i).tensor());
    log << "wrote " << file << "\n";
  }
}

}  // namespace aotrt_cli
