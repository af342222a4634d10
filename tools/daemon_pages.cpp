#include "tools/daemon_pages.h"

#include "sm/metrics/sm_metrics.h"
#include "sm/status_page/page_input.h"
#include "tools/os/steady_clock.h"

namespace ibsm::tools {

std::shared_ptr<const PublishedPages> publish_pages(const SubnetManager& sm, Micros now) {
  auto pages = std::make_shared<PublishedPages>();
  metrics::MetricsRegistry registry;
  metrics::collect_sm_metrics(sm, now, registry);
  pages->metrics = registry.render();
  pages->status = std::make_shared<const status::StatusPageInput>(status::status_page_input(sm, now));
  return pages;
}

HttpReply status_page(const PublishedPages& pages) {
  if (!pages.status) return {503, "text/plain; charset=utf-8", "no status yet\n"};
  // Ages ("12 s ago") as of this request, on the manager's clock.
  status::StatusPageInput in = *pages.status;
  in.now = SteadyClock().now();
  return {200, "text/html; charset=utf-8", status::render_status_page(in)};
}

Result<std::unique_ptr<DaemonPages>> DaemonPages::start(const SmConfig& config, LogSink& log,
                                                        std::map<std::string, PageHandler> pages) {
  auto address = parse_listen_address(config.metrics_listen);
  if (!address.ok()) return address.status();
  if (!*address) return std::unique_ptr<DaemonPages>();
  HttpListenerOptions options;
  options.address = **address;
  options.pages = std::move(pages);
  auto listener = HttpListener::start(std::move(options), log);
  if (!listener.ok()) return listener.status();
  return std::unique_ptr<DaemonPages>(new DaemonPages(std::move(*listener)));
}

// What makes a page worth publishing before the second is up: the SM's
// state and its sweeps. Counters (MADs, SA requests) move with every poll
// under load, and rendering every port's series ten times a second took
// half the SA's rate on a 704-node fabric (bench/watch_cost.sh).
DaemonPages::Fingerprint DaemonPages::fingerprint(const SubnetManager& sm) {
  const ManagerCounters& c = sm.counters();
  return {sm.state(), c.heavy_sweeps, c.light_sweeps, c.discovery_sweeps, sm.sm_agent().counters().traps,
          c.state_changes, sm.perf().stats().sweeps};
}

void DaemonPages::after_poll(const SubnetManager& sm, Micros now) {
  constexpr Micros kEvery = 1'000'000, kAtMost = 100'000;
  const Fingerprint f = fingerprint(sm);
  const Micros since = now - published_at_;
  if (published_ && since < kEvery && (f == last_ || since < kAtMost)) return;
  listener_->publish(publish_pages(sm, now));
  last_ = f;
  published_at_ = now;
  published_ = true;
}

}  // namespace ibsm::tools
