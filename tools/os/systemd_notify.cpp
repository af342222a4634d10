#include "tools/os/systemd_notify.h"

#include <systemd/sd-daemon.h>

namespace ibsm {

void SystemdNotifier::ready(const std::string& status) {
  if (ready_) return this->status(status);
  ready_ = true;
  last_status_ = status;
  // unset_environment 0: a SIGHUP-restarted child (none today) could still
  // tell systemd; errors are ignored, as a missing socket means no systemd.
  (void)sd_notifyf(0, "READY=1\nSTATUS=%s", status.c_str());
}

void SystemdNotifier::status(const std::string& status) {
  if (status == last_status_) return;
  last_status_ = status;
  (void)sd_notifyf(0, "STATUS=%s", status.c_str());
}

void SystemdNotifier::stopping() { (void)sd_notify(0, "STOPPING=1\nSTATUS=stopping"); }

}  // namespace ibsm
