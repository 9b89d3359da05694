// The subcommands of the `aotrt` tool. Each Add*Command registers its options on `app` and returns
// the subcommand; `*run` is set to the action main() calls once that subcommand was parsed.
// Actions return the exit status and throw aotrt::Error / std::exception on failure.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace aotrt_cli {

using Action = std::function<int()>;

CLI::App* AddInspectCommand(CLI::App& app, Action* run);
CLI::App* AddRunCommand(CLI::App& app, Action* run);
CLI::App* AddBenchCommand(CLI::App& app, Action* run);
CLI::App* AddProfileCommand(CLI::App& app, Action* run);
CLI::App* AddCacheCommand(CLI::App& app, Action* run);
CLI::App* AddDevicesCommand(CLI::App& app, Action* run);

}  // namespace aotrt_cli
