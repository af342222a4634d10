#include "tools/os/systemd_notify.h"

#include <systemd/sd-daemon.h>

namespace ibsm {

void SystemdNotifier::ready(const std::string& status) {
  if (ready_) {
    this->status(status);
    return;
  }
  ready_ = true;
  last_status_ = status;
  // unset_environment 0: NOTIFY_SOCKET stays for the later STATUS= lines.
  // Errors are ignored: no socket means no systemd to tell.
  (void)sd_notifyf(0, "READY=1\nSTATUS=%s", status.c_str());
}

void SystemdNotifier::status(const std::string& status) {
  if (status == last_status_) return;
  last_status_ = status;
  (void)sd_notifyf(0, "STATUS=%s", status.c_str());
}

void SystemdNotifier::stopping() { (void)sd_notify(0, "STOPPING=1\nSTATUS=stopping"); }

}  // namespace ibsm
