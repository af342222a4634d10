// SimFabric's clients: attaching, detaching (a client killed), the IsSM flag,
// and waiting in virtual time with cooperative service of the other clients.
#include <algorithm>
#include <cassert>

#include "mad/sim/sim_fabric.h"

namespace ibsm {

namespace {

// Rounds of service per wait. One is enough while every latency is > 0: a
// service's MADs arrive later, not now. The bound only stops a loop when the
// options make latencies 0 and services keep answering each other at once.
constexpr int max_service_rounds = 8;

}  // namespace

SimPort& SimFabric::attach(NodeIndex node, uint8_t port) {
  assert(node.value < state_.node_count());
  const sim::NodeRecord& n = state_.node(node.value);
  assert(n.is_switch() ? port == 0 : (port >= 1 && port <= n.num_ports));
  const uint32_t index = state_.port_index(node.value, port);
  assert(client_by_port_.count(index) == 0 && "one client per port");
  (void)n;
  clients_.push_back(std::unique_ptr<SimPort>(new SimPort(*this, node.value, port)));
  client_by_port_[index] = clients_.back().get();
  last_client_port_ = UINT32_MAX;
  return *clients_.back();
}

void SimFabric::detach(SimPort& port) {
  assert(&port.fabric_ == this);
  if (!port.attached_) return;
  port.attached_ = false;
  // Safe while the service runs: the fabric calls a copy of it.
  port.service_ = nullptr;
  port.clear_inbox();
  client_by_port_.erase(state_.port_index(port.node_, port.port_));
  last_client_port_ = UINT32_MAX;
  // The kernel clears IsSM when the SM's umad fd closes; the master SM hears
  // of it by trap 144. The port has no client now, so it is not the one told.
  set_port_is_sm(port.node_, port.port_, false);
}

SimPort* SimFabric::client_at(uint32_t node, uint8_t port) const {
  if (client_by_port_.empty()) return nullptr;
  const uint8_t p = state_.node(node).is_switch() ? uint8_t{0} : port;
  const uint32_t index = state_.port_index(node, p);
  if (index == last_client_port_) return last_client_;
  auto it = client_by_port_.find(index);
  if (it == client_by_port_.end()) return nullptr;
  last_client_port_ = index;
  last_client_ = it->second;
  return it->second;
}

std::optional<Micros> SimFabric::next_delivery() const {
  std::optional<Micros> next;
  for (const auto& c : clients_) {
    auto due = c->next_due();
    if (due && (!next || *due < *next)) next = due;
  }
  return next;
}

void SimFabric::set_port_is_sm(uint32_t node, uint8_t port, bool is_sm) {
  sim::PortRecord& p = state_.port(node, port);
  if (p.has(sim::port_flag::is_sm) == is_sm) return;
  p.set(sim::port_flag::is_sm, is_sm);
  send_trap144(node, port);
}

void SimFabric::wait_for(SimPort& client, Micros max_wait) {
  const bool was_busy = client.busy_;
  client.busy_ = true;
  serve_others(&client);
  client.busy_ = was_busy;
  if (auto due = client.next_due(); due && *due <= clock_.now()) return;
  move_clock(max_wait);
}

void SimFabric::step(Micros max_wait) {
  serve_others(nullptr);
  move_clock(max_wait);
}

void SimFabric::move_clock(Micros max_wait) {
  const Micros now = clock_.now();
  while (!wakeups_.empty() && wakeups_.top() <= now) wakeups_.pop();
  Micros target = now + std::max<Micros>(max_wait, 0);
  if (!wakeups_.empty() && wakeups_.top() < target) target = wakeups_.top();
  clock_.set(target);
}

// The waiter blocks (an SM in its heavy sweep); the others are separate
// processes that would answer meanwhile. In one thread they get to run here,
// in attach order, at the current virtual time, so the result does not
// depend on who happened to wait. Skipped: the waiter, anyone on the stack
// (waiting further up, or in its service), frozen and detached clients, and
// clients with nothing due.
void SimFabric::serve_others(const SimPort* waiter) {
  for (int round = 0; round < max_service_rounds; ++round) {
    const uint64_t deliveries_before = next_seq_;
    bool served = false;
    // By index: a service may attach clients.
    for (size_t i = 0; i < clients_.size(); ++i) {
      SimPort& c = *clients_[i];
      if (&c == waiter || c.busy_ || c.frozen_ || !c.attached_ || !c.service_) continue;
      const auto due = c.next_due();
      if (!due || *due > clock_.now()) continue;
      // A copy, so the service may replace itself or detach its port.
      const std::function<void()> service = c.service_;
      c.busy_ = true;
      service();
      c.busy_ = false;
      served = true;
    }
    // Another round only when a service put something in an inbox, which
    // might be due already (latencies of 0).
    if (!served || next_seq_ == deliveries_before) return;
  }
  log(log_, LogLevel::debug, Subsystem::sim, "services still busy after {} rounds at {} us", max_service_rounds,
      clock_.now());
}

}  // namespace ibsm
