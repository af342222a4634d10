// The daemon's messages to systemd for a Type=notify unit (sd_notify(3)):
// READY=1 once the first sweep settled, STATUS= as the SM's state changes,
// STOPPING=1 on SIGTERM. Outside systemd (no NOTIFY_SOCKET) every call does
// nothing.
#pragma once

#include <string>

namespace ibsm {

class SystemdNotifier {
 public:
  // READY=1 with a STATUS= line, once; later calls only update the status.
  void ready(const std::string& status);
  // STATUS= when it differs from the last one sent.
  void status(const std::string& status);
  void stopping();
  bool is_ready() const { return ready_; }

 private:
  bool ready_ = false;
  std::string last_status_;
};

}  // namespace ibsm
