// aotrt: inspect, run, benchmark and profile TVM AOT model libraries; list and clear the cache.
//
// Exit status: 0 success, 1 usage error (bad command line), 2 runtime error (file, model, input),
// 3 outputs differ from `run --expect`.
// Every error is one line on stderr.
#include <iostream>
#include <string>

#include <aotrt/error.h>
#include <aotrt/version.h>

#include "commands.h"
#include "usage_error.h"

namespace {

std::string OneLine(std::string msg) {
  for (char& c : msg) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!msg.empty() && msg.back() == ' ') msg.pop_back();
  return msg;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"aotrt: inspect, run, benchmark and profile Apache TVM AOT model libraries (.so)", "aotrt"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "aotrt " AOTRT_VERSION);
  aotrt_cli::Action inspect, run, bench, profile, cache, devices;
  CLI::App* inspect_cmd = aotrt_cli::AddInspectCommand(app, &inspect);
  CLI::App* run_cmd = aotrt_cli::AddRunCommand(app, &run);
  CLI::App* bench_cmd = aotrt_cli::AddBenchCommand(app, &bench);
  CLI::App* profile_cmd = aotrt_cli::AddProfileCommand(app, &profile);
  CLI::App* cache_cmd = aotrt_cli::AddCacheCommand(app, &cache);
  CLI::App* devices_cmd = aotrt_cli::AddDevicesCommand(app, &devices);
  // CLI11 reports an unknown first word as a missing subcommand: name it and the valid ones.
  std::string valid;
  bool known = false;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    valid += (valid.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "aotrt: unknown subcommand '" << argv[1] << "'; valid subcommands: " << valid
              << " (see 'aotrt --help')\n";
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::cerr << "aotrt: " << OneLine(e.what()) << " (see 'aotrt --help')\n";
    return 1;
  }
  try {
    if (inspect_cmd->parsed()) return inspect();
    if (run_cmd->parsed()) return run();
    if (bench_cmd->parsed()) return bench();
    if (profile_cmd->parsed()) return profile();
    if (cache_cmd->parsed()) return cache();
    if (devices_cmd->parsed()) return devices();
    return 1;
  } catch (const aotrt_cli::UsageError& e) {
    std::cerr << "aotrt: " << OneLine(e.what()) << " (see 'aotrt --help')\n";
    return 1;
  } catch (const aotrt::Error& e) {
    std::cerr << "aotrt: error: " << OneLine(e.what()) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "aotrt: error: " << OneLine(e.what()) << "\n";
  } catch (...) {
    std::cerr << "aotrt: error: unknown exception\n";
  }
  return 2;
}
