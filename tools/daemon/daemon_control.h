// The daemon's side of `ibsm ctl`: what each control command does to the
// running SubnetManager. status and sminfo answer on the control socket's
// I/O thread from the snapshot publish() last took (so they answer while a
// heavy sweep blocks the main loop); everything else runs on the main
// thread between polls (handle), through ControlServer::run_pending.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "sm/manager/manager_status.h"
#include "sm/manager/subnet_manager.h"
#include "tools/os/control_socket.h"

namespace ibsm::tools {

// The commands, for the client's usage checks and the server's dispatch:
// name, the one argument it takes ("" none), whether it is required.
struct ControlCommand {
  const char* name;
  const char* summary;
  const char* argument;  // "" none, "LEVEL", "[DIR]"...
  bool argument_required;
  const char* flag;      // a flag it takes besides --json ("" none)
};
const std::vector<ControlCommand>& control_commands();
struct ControlRequest {
  const ControlCommand* command = nullptr;
  std::string argument;  // empty: none given
  bool json = false;
  bool flag = false;     // the command's own flag (resweep --heavy)
};
// The words of a request (the client's argv after `ctl`, as sent): the
// command, its flag, --json and its argument in any order.
Result<ControlRequest> parse_control_request(const ControlWords& words);

class DaemonControl {
 public:
  // `level_sink`: the daemon's log sink whose level `loglevel` sets;
  // `own_lid`: reads the local port's LID (a syscall: publish() calls it at
  // most once a second); `dump_dir`: dump_files_dir.
  DaemonControl(SubnetManager& sm, const Clock& clock, FilteringLogSink& level_sink, LogSink& log,
                std::function<Lid()> own_lid, std::string dump_dir);

  // Main thread, after each poll: a fresh status for the I/O thread when
  // the state or a sweep changed, else at most once a second, unless `force`.
  void publish(bool force = false);
  // I/O thread: status and sminfo from the published snapshot; nullopt for
  // the rest.
  std::optional<ControlAnswer> immediate(const ControlWords& words);
  // Main thread: every command.
  ControlAnswer handle(const ControlWords& words);
  // Main thread, between polls: logs what the socket's thread saw, runs the
  // waiting requests, publishes the status.
  void serve(ControlServer& server);

 private:
  ControlAnswer run(const ControlRequest& r);

  SubnetManager& sm_;
  const Clock& clock_;
  FilteringLogSink& level_sink_;
  LogSink& log_;
  std::function<Lid()> own_lid_;
  std::string dump_dir_;
  Lid lid_;
  Micros lid_read_at_ = -1'000'000'000;
  Micros published_at_ = -1'000'000'000;
  std::tuple<SmState, uint64_t, uint64_t, uint64_t, uint64_t, Micros, size_t, std::string> published_seen_;
  std::mutex mu_;
  std::shared_ptr<const ManagerStatus> status_;  // guarded by mu_
};

}  // namespace ibsm::tools
