#include "base/logging.h"

#include <cstdlib>
#include <memory>
#include <mutex>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "aotrt/c_api.h"

namespace aotrt {
namespace log {
namespace {

// Forwards formatted records to the user's callback.
class CallbackSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  CallbackSink(AOTRTLogCallback cb, void* user) : cb_(cb), user_(user) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string text(msg.payload.data(), msg.payload.size());
    cb_(static_cast<int>(msg.level), text.c_str(), user_);
  }
  void flush_() override {}

 private:
  AOTRTLogCallback cb_;
  void* user_;
};

spdlog::level::level_enum LevelFromEnv() {
  const char* env = std::getenv("AOTRT_LOG_LEVEL");
  if (!env || !*env) return spdlog::level::warn;
  return spdlog::level::from_str(env);
}

struct Logger {
  std::mutex mu;
  std::shared_ptr<spdlog::logger> logger;
  Logger() {
    logger = std::make_shared<spdlog::logger>("aotrt", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    logger->set_level(LevelFromEnv());
    logger->set_pattern("[aotrt] [%l] %v");
  }
  std::shared_ptr<spdlog::logger> Get() {
    std::lock_guard<std::mutex> lock(mu);
    return logger;
  }
};

Logger& Instance() {
  static Logger* instance = new Logger();  // never destroyed: usable from static destructors
  return *instance;
}

}  // namespace

bool Enabled(Level level) {
  return Instance().Get()->should_log(static_cast<spdlog::level::level_enum>(level));
}

void Write(Level level, const std::string& message) {
  Instance().Get()->log(static_cast<spdlog::level::level_enum>(level), message);
}

void SetCallback(AOTRTLogCallback cb, void* user) {
  Logger& l = Instance();
  std::shared_ptr<spdlog::sinks::sink> sink;
  if (cb) {
    sink = std::make_shared<CallbackSink>(cb, user);
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  }
  auto logger = std::make_shared<spdlog::logger>("aotrt", sink);
  logger->set_pattern("[aotrt] [%l] %v");
  std::lock_guard<std::mutex> lock(l.mu);
  logger->set_level(l.logger->level());
  l.logger = logger;
}

void SetLevel(int level) {
  Instance().Get()->set_level(static_cast<spdlog::level::level_enum>(level));
}

}  // namespace log
}  // namespace aotrt
