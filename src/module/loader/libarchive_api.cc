#include "module/loader/libarchive_api.h"

#include <dlfcn.h>

#include <string>

#include "base/error_util.h"

#ifndef AOTRT_LIBARCHIVE_SONAME
#define AOTRT_LIBARCHIVE_SONAME "libarchive.so.13"
#endif

namespace aotrt {
namespace {

template <typename Fn>
void Bind(void* handle, const char* name, Fn* fn, std::string* error) {
  *fn = reinterpret_cast<Fn>(::dlsym(handle, name));
  if (!*fn && error->empty()) *error = StrCat("it has no function ", name);
}

}  // namespace

std::string BindLibArchive(const char* soname, LibArchiveApi* api) {
  // RTLD_LOCAL: its symbols (and its dependencies') stay out of the global scope models resolve
  // in. Kept open for the life of the process, as a linked library would be.
  void* h = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = ::dlerror();
    return why ? why : StrCat("dlopen of ", soname, " failed");
  }
  std::string error;
#define AOTRT_LIBARCHIVE_BIND(field, function) Bind(h, #function, &api->field, &error);
  AOTRT_LIBARCHIVE_FUNCTIONS(AOTRT_LIBARCHIVE_BIND)
#undef AOTRT_LIBARCHIVE_BIND
  if (!error.empty()) {
    ::dlclose(h);
    *api = LibArchiveApi{};
    return StrCat(soname, ": ", error);
  }
  return std::string();
}

const LibArchiveApi& LibArchive() {
  static LibArchiveApi api{};
  static const std::string error = BindLibArchive(AOTRT_LIBARCHIVE_SONAME, &api);
  AOTRT_REQUIRE(error.empty(), kNotFound, "reading a tar archive needs libarchive (", AOTRT_LIBARCHIVE_SONAME,
                ", Debian package libarchive13), which cannot be used: ", error);
  return api;
}

}  // namespace aotrt
