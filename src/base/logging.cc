#include "base/logging.h"

#include <atomic>
#include <cctype>
#include <memory>
#include <mutex>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace aotrt {
namespace log {
namespace {

// Forwards formatted records to the user's callback.
class CallbackSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  CallbackSink(Callback cb, void* user) : cb_(cb), user_(user) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string text(msg.payload.data(), msg.payload.size());
    cb_(static_cast<int>(msg.level), text.c_str(), user_);
  }
  void flush_() override {}

 private:
  Callback cb_;
  void* user_;
};

std::shared_ptr<spdlog::logger> MakeLogger(std::shared_ptr<spdlog::sinks::sink> sink) {
  auto logger = std::make_shared<spdlog::logger>("aotrt", std::move(sink));
  logger->set_pattern("[aotrt] [%l] %v");
  logger->set_level(spdlog::level::trace);  // filtering is ours (Logger::level), before formatting
  return logger;
}

// The level is a constant-initialized global, apart from the logger: a level check (every load
// makes some) touches neither the logger nor a static guard.
std::atomic<int> g_level{kWarn};

struct Logger {
  std::mutex mu;
  // Made at the first record, not at the first level check: loading a model logs nothing at the
  // default level and should not pay for a logger (a terminal query on stderr, a registry).
  std::shared_ptr<spdlog::logger> logger;

  std::shared_ptr<spdlog::logger> Get() {
    std::lock_guard<std::mutex> lock(mu);
    if (!logger) logger = MakeLogger(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    return logger;
  }
};

Logger& Instance() {
  static Logger* instance = new Logger();  // never destroyed: usable from static destructors
  return *instance;
}

}  // namespace

int ParseLevel(const std::string& text) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const struct { const char* name; int level; } kNames[] = {
      {"trace", kTrace}, {"debug", kDebug},   {"info", kInfo},         {"warn", kWarn}, {"warning", kWarn},
      {"error", kError}, {"err", kError},     {"critical", kCritical}, {"off", kOff},   {"none", kOff}};
  for (const auto& n : kNames) {
    if (t == n.name) return n.level;
  }
  if (t.size() == 1 && t[0] >= '0' && t[0] <= '6') return t[0] - '0';
  return -1;
}

bool Enabled(Level level) { return level >= g_level.load(std::memory_order_relaxed) && level != kOff; }

void Write(Level level, const std::string& message) {
  Instance().Get()->log(static_cast<spdlog::level::level_enum>(level), message);
}

void SetCallback(Callback cb, void* user) {
  auto logger = MakeLogger(cb ? std::shared_ptr<spdlog::sinks::sink>(std::make_shared<CallbackSink>(cb, user))
                              : std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  Logger& l = Instance();
  std::lock_guard<std::mutex> lock(l.mu);
  l.logger = logger;
}

void SetLevel(int level) {
  AOTRT_REQUIRE(level >= kTrace && level <= kOff, kInvalidArgument, "log level ", level,
                " is out of range: expected 0 (trace) .. 6 (off)");
  g_level.store(level, std::memory_order_relaxed);
}

}  // namespace log
}  // namespace aotrt
