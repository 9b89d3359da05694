// TVM's logging and checking macros (tvm/runtime/logging.h) for deployment programs, over aotrt.
// tvm::runtime::Error IS aotrt::Error: it catches every error the library throws. Where TVM aborts
// (a failed ICHECK, CHECK, LOG(FATAL); in every header of tvm/runtime, a call on a wrong value),
// these throw: here InternalError (kInternal) "Check failed: ..." with the values compared, as TVM's
// message reads. LOG(INFO / WARNING / ERROR) writes a line "[hh:mm:ss] file:line: message" to stderr,
// with one call (any thread). dmlc-core defines the same bare names (LOG, CHECK): include one or the
// other in a translation unit.
#pragma once

#if __cplusplus < 201703L
#error "aotrt's TVM C++ runtime headers need C++17 (-std=c++17), as TVM v0.10 and later do"
#endif

#include <ctime>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "aotrt/c_api.h"
#include "aotrt/error.h"

namespace tvm {
namespace runtime {

using Error = aotrt::Error;
using ErrorCode = aotrt::ErrorCode;

// A failed check or LOG(FATAL): TVM's InternalError, with the place it was raised.
class InternalError : public Error {
 public:
  InternalError(std::string file, int lineno, const std::string& message)
      : Error(aotrt::ErrorCode::kInternal, message), file_(std::move(file)), lineno_(lineno) {}
  const std::string& file() const { return file_; }
  int lineno() const { return lineno_; }
  std::string message() const { return what(); }
  std::string full_message() const { return file_ + ":" + std::to_string(lineno_) + ": " + what(); }

 private:
  std::string file_;
  int lineno_;
};

namespace detail {

// Collects the message of LOG(FATAL) or a failed check; its destructor throws InternalError.
class LogFatal {
 public:
  LogFatal(const char* file, int lineno) : file_(file), lineno_(lineno) {}
  std::ostringstream& stream() { return stream_; }
  [[noreturn]] ~LogFatal() noexcept(false) { throw InternalError(file_, lineno_, stream_.str()); }

 private:
  const char* file_;
  int lineno_;
  std::ostringstream stream_;
};

// One line to stderr when destroyed.
class LogMessage {
 public:
  LogMessage(const char* file, int lineno, const char* level) {
    std::time_t t = std::time(nullptr);
    char when[16];
    std::strftime(when, sizeof(when), "%H:%M:%S", std::localtime(&t));
    stream_ << "[" << when << "] " << file << ":" << lineno << ": " << level;
  }
  ~LogMessage() {
    stream_ << '\n';
    std::cerr << stream_.str() << std::flush;
  }
  std::ostringstream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// Swallows a stream expression (disabled DLOG / VLOG).
struct LogVoidify {
  void operator&(std::ostream&) {}
};

// " (x vs. y) " when x op y fails, else null (TVM's LogCheck_*).
template <typename X, typename Y, typename Op>
std::unique_ptr<std::string> LogCheck(const X& x, const Y& y, Op op) {
  if (op(x, y)) return nullptr;
  std::ostringstream os;
  os << " (" << x << " vs. " << y << ") ";
  return std::make_unique<std::string>(os.str());
}

template <typename T>
T CheckNotNull(const char* file, int lineno, const char* what, T&& x) {
  if (x == nullptr) LogFatal(file, lineno).stream() << "Check not null: " << what;
  return std::forward<T>(x);
}

// Throws the calling thread's last error (its message and code) when a C ABI call returned non-zero.
inline void CheckCall(int rc) {
  const char* message = rc != 0 ? TVMGetLastError() : nullptr;
  if (rc != 0) throw Error(static_cast<ErrorCode>(AOTRTGetLastErrorCode()), message ? message : "");
}

}  // namespace detail
}  // namespace runtime
using runtime::Error;
using runtime::InternalError;
}  // namespace tvm

#define LOG_FATAL ::tvm::runtime::detail::LogFatal(__FILE__, __LINE__)
#define LOG_ERROR ::tvm::runtime::detail::LogMessage(__FILE__, __LINE__, "Error: ")
#define LOG_WARNING ::tvm::runtime::detail::LogMessage(__FILE__, __LINE__, "Warning: ")
#define LOG_INFO ::tvm::runtime::detail::LogMessage(__FILE__, __LINE__, "")
#define LOG_DEBUG ::tvm::runtime::detail::LogMessage(__FILE__, __LINE__, "Debug: ")
#define LOG(level) LOG_##level.stream()
#define LOG_IF(level, cond) !(cond) ? (void)0 : ::tvm::runtime::detail::LogVoidify() & LOG(level)

#define TVM_COMPAT_CHECK_BINARY(op, x, y)                                                                   \
  if (auto __tvm_check_err =                                                                                \
          ::tvm::runtime::detail::LogCheck(x, y, [](const auto& a, const auto& b) { return a op b; }))      \
  ::tvm::runtime::detail::LogFatal(__FILE__, __LINE__).stream()                                             \
      << "Check failed: " << #x " " #op " " #y << *__tvm_check_err << ": "

#define ICHECK(x) \
  if (!(x)) ::tvm::runtime::detail::LogFatal(__FILE__, __LINE__).stream() << "Check failed: (" #x << ") is false: "
#define ICHECK_LT(x, y) TVM_COMPAT_CHECK_BINARY(<, x, y)
#define ICHECK_GT(x, y) TVM_COMPAT_CHECK_BINARY(>, x, y)
#define ICHECK_LE(x, y) TVM_COMPAT_CHECK_BINARY(<=, x, y)
#define ICHECK_GE(x, y) TVM_COMPAT_CHECK_BINARY(>=, x, y)
#define ICHECK_EQ(x, y) TVM_COMPAT_CHECK_BINARY(==, x, y)
#define ICHECK_NE(x, y) TVM_COMPAT_CHECK_BINARY(!=, x, y)
#define ICHECK_NOTNULL(x) ::tvm::runtime::detail::CheckNotNull(__FILE__, __LINE__, #x, (x))
#define CHECK(x) ICHECK(x)
#define CHECK_LT(x, y) ICHECK_LT(x, y)
#define CHECK_GT(x, y) ICHECK_GT(x, y)
#define CHECK_LE(x, y) ICHECK_LE(x, y)
#define CHECK_GE(x, y) ICHECK_GE(x, y)
#define CHECK_EQ(x, y) ICHECK_EQ(x, y)
#define CHECK_NE(x, y) ICHECK_NE(x, y)
#define CHECK_NOTNULL(x) ICHECK_NOTNULL(x)

#ifdef NDEBUG
#define DLOG(level) true ? (void)0 : ::tvm::runtime::detail::LogVoidify() & LOG(level)
#define DCHECK(x) while (false) ICHECK(x)
#else
#define DLOG(level) LOG(level)
#define DCHECK(x) ICHECK(x)
#endif
#define VLOG(level) true ? (void)0 : ::tvm::runtime::detail::LogVoidify() & LOG(INFO)
