#include "base/last_error.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <utility>

#include "base/error_util.h"

namespace aotrt {

__thread uint64_t t_last_error_sequence __attribute__((tls_model("initial-exec"))) = 0;

namespace {

using PyRefFn = void (*)(void*);
using PyGILEnsureFn = int (*)();      // PyGILState_STATE is a C enum: int-sized
using PyGILReleaseFn = void (*)(int);
// The functions RegisterEnvCAPI was given. PyGILState_*: registered by TVM v0.15+'s Python
// package; when absent, looked up in the process (below).
std::atomic<void*> g_py_incref{nullptr}, g_py_decref{nullptr}, g_gil_ensure{nullptr}, g_gil_release{nullptr};

// No destructor releases py_exc: an exception left here at thread or process exit is leaked, never
// released after the interpreter is gone.
struct LastError {
  std::string message;
  ErrorCode code = ErrorCode::kOk;
  bool set = false;
  void* py_exc = nullptr;
  const char* fixed = nullptr;  // static text used instead of `message` when copying it failed
};

LastError& Slot() {
  static thread_local LastError slot;
  return slot;
}

// Py_DecRef may run the object's finalizer, which needs the GIL; C calls from ctypes run without
// it, so take it through the PyGILState functions the host registered (TVM v0.15+), else the
// interpreter's own when they are in the process.
void ReleasePython(void* obj) {
  auto decref = reinterpret_cast<PyRefFn>(g_py_decref.load());
  if (!obj || !decref) return;
  static auto found_ensure = reinterpret_cast<PyGILEnsureFn>(dlsym(RTLD_DEFAULT, "PyGILState_Ensure"));
  static auto found_release = reinterpret_cast<PyGILReleaseFn>(dlsym(RTLD_DEFAULT, "PyGILState_Release"));
  auto ensure = reinterpret_cast<PyGILEnsureFn>(g_gil_ensure.load());
  auto release = reinterpret_cast<PyGILReleaseFn>(g_gil_release.load());
  if (!ensure || !release) ensure = found_ensure, release = found_release;
  int state = ensure && release ? ensure() : 0;
  decref(obj);
  if (ensure && release) release(state);
}

void Reset(LastError& s, ErrorCode code, const std::string& message, void* py_exc, const char* fixed = nullptr) {
  s.message = message;  // first: if the copy throws, the record (and a held exception) is unchanged
  s.fixed = fixed;
  void* old = s.py_exc;
  s.py_exc = py_exc;
  s.code = code;
  s.set = true;
  ++t_last_error_sequence;
  ReleasePython(old);  // last: its finalizer may call back into aotrt
}

}  // namespace

void SetLastError(ErrorCode code, const std::string& message) { Reset(Slot(), code, message, nullptr); }

void SetLastErrorNoexcept(ErrorCode code, const char* where, const char* what) noexcept {
  LastError& s = Slot();
  try {
    std::string message = where ? StrCat(where, ": ", what ? what : "") : std::string(what ? what : "");
    Reset(s, code, message, nullptr);
  } catch (...) {  // no memory for the text: keep the code, with a static message (an empty copy cannot throw)
    Reset(s, code, std::string(), nullptr, "out of memory while recording the error message");
  }
}

const char* LastErrorMessage() {
  const LastError& s = Slot();
  if (!s.set || s.py_exc) return nullptr;
  return s.fixed ? s.fixed : s.message.c_str();
}

ErrorCode LastErrorCode() { return Slot().code; }

bool RegisterEnvCAPI(const char* name, void* fptr) {
  // PyErr_CheckSignals is accepted as TVM does; only TVM's own test helpers poll signals, aotrt never does.
  const std::pair<const char*, std::atomic<void*>*> kSlots[] = {
      {"Py_IncRef", &g_py_incref}, {"Py_DecRef", &g_py_decref}, {"PyGILState_Ensure", &g_gil_ensure},
      {"PyGILState_Release", &g_gil_release}, {"PyErr_CheckSignals", nullptr}};
  for (const auto& [n, slot] : kSlots) {
    if (std::strcmp(name, n) != 0) continue;
    if (slot) slot->store(fptr);
    return true;
  }
  return false;
}

void SetLastPythonError(void* py_exc) {
  auto incref = reinterpret_cast<PyRefFn>(g_py_incref.load());
  AOTRT_REQUIRE(incref && g_py_decref.load(), kInvalidArgument,
                "TVMAPISetLastPythonError: Py_IncRef/Py_DecRef were not registered with TVMBackendRegisterEnvCAPI");
  if (py_exc) incref(py_exc);
  Reset(Slot(), ErrorCode::kModelError, "", py_exc);
}

void* LastPythonError() { return Slot().py_exc; }

void DropLastPythonError() {
  LastError& s = Slot();
  if (s.py_exc) Reset(s, ErrorCode::kModelError, "", nullptr);
}

void ThrowIfPythonErrorSince(uint64_t sequence) {
  if (LastErrorSequence() != sequence && LastPythonError()) throw PendingPythonError();
}

void ThrowCalleeFailure(uint64_t sequence, const std::string& what) {
  ThrowIfPythonErrorSince(sequence);
  const char* msg = LastErrorMessageSince(sequence);
  AOTRT_THROW(kModelError, what, " failed: ", msg ? msg : "it returned an error without a message");
}

}  // namespace aotrt
