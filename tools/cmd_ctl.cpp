// ibsm ctl: the client of the daemon's control socket (tools/os/control_socket.h).
// Sends one command, prints the answer; exit 0 done, 1 the daemon refused
// or failed it (or is not there), 2 bad usage.
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "sm/config/sm_config.h"
#include "tools/args.h"
#include "tools/command.h"
#include "tools/daemon/daemon_control.h"
#include "tools/os/control_socket.h"

namespace ibsm::tools {
namespace {

std::string usage() {
  std::string u =
      "usage: ibsm ctl [--socket PATH] [--timeout S] COMMAND [ARGUMENT] [--json]\n"
      "\n"
      "Controls the running daemon (ibsm run) through its control socket: root, the\n"
      "daemon's user and members of its control_group only.\n"
      "\n"
      "commands:\n";
  for (const ControlCommand& c : control_commands())
    u += fmt::format("  {:<22} {}\n", fmt::format("{}{}{}{}{}", c.name, *c.flag ? " [" : "", c.flag, *c.flag ? "]" : "",
                                                  *c.argument ? std::string(" ") + c.argument : ""),
                     c.summary);
  u += fmt::format(
      "\noptions:\n"
      "  --socket PATH   the daemon's control socket [control_socket] (default {})\n"
      "  --timeout S     seconds to wait for the answer (default 60: a heavy sweep\n"
      "                  runs before a command that acts on the SM)\n"
      "  --json          print JSON\n"
      "  -h, --help      this text\n",
      SmConfig{}.control_socket);
  return u;
}

}  // namespace

int cmd_ctl(int argc, char** argv) {
  Args args(argc, argv);
  if (args.flag("--help", "-h")) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  const std::string socket = args.value("--socket").value_or(SmConfig{}.control_socket);
  const auto timeout = args.integer("--timeout", 1, 3600);
  const bool json = args.flag("--json");
  const bool heavy = args.flag("--heavy");
  ControlWords words = args.positionals();
  if (json) words.push_back("--json");
  if (heavy) words.push_back("--heavy");
  auto request = parse_control_request(words);
  if (!args.ok() || !request.ok()) {
    std::fprintf(stderr, "ibsm ctl: %s\n", !args.ok() ? args.errors().front().c_str() : request.status().message().c_str());
    std::fputs(usage().c_str(), stderr);
    return 2;
  }
  auto answer = control_call(socket, words, std::chrono::seconds(timeout.value_or(60)));
  if (!answer.ok()) {
    std::fprintf(stderr, "ibsm ctl: %s\n", answer.status().message().c_str());
    return 1;
  }
  if (!answer->ok) {
    std::fprintf(stderr, "ibsm ctl: %s: %s\n", words.front().c_str(), answer->body.c_str());
    return 1;
  }
  std::fputs(answer->body.c_str(), stdout);
  return 0;
}

}  // namespace ibsm::tools
