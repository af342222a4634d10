// What the daemon shows over HTTP, and the one step that publishes it: after
// a poll of the manager, on the main thread, the pages are rendered from the
// core's state and handed to the HTTP listener's threads, which never read
// the core themselves. Further pages (the status page, the performance
// manager's counters) are rendered in publish_pages() too.
#pragma once

#include <cstdint>
#include <memory>
#include <tuple>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "sm/config/sm_config.h"
#include "sm/manager/subnet_manager.h"
#include "tools/os/http_listener.h"

namespace ibsm::tools {

// Renders every page from the manager's state at `now`.
std::shared_ptr<const PublishedPages> publish_pages(const SubnetManager& sm, Micros now);
// "/": the status page of what was last published (on an HTTP thread).
HttpReply status_page(const PublishedPages& pages);

class DaemonPages {
 public:
  // The listener of `config.metrics_listen`, bound now; null when it is off.
  // A bad address or a failed bind is the error. `pages` are served beside
  // /metrics (path -> handler).
  static Result<std::unique_ptr<DaemonPages>> start(const SmConfig& config, LogSink& log,
                                                    std::map<std::string, PageHandler> pages = {});

  // After each poll: publishes when the manager's state or sweeps moved (at
  // most every 100 ms) and at least every second (the counters, the age of
  // the last sweep).
  void after_poll(const SubnetManager& sm, Micros now);
  int port() const { return listener_->port(); }

 private:
  explicit DaemonPages(std::unique_ptr<HttpListener> listener) : listener_(std::move(listener)) {}
  // What moves when there is something new to show.
  using Fingerprint = std::tuple<SmState, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t>;
  static Fingerprint fingerprint(const SubnetManager& sm);

  std::unique_ptr<HttpListener> listener_;
  Fingerprint last_{};
  Micros published_at_ = 0;
  bool published_ = false;
};

}  // namespace ibsm::tools
