#include "sm/discovery/discovery.h"

#include <memory>

#include "mad/wire/node_description.h"
#include "mad/wire/node_info.h"
#include "mad/wire/port_info.h"
#include "mad/wire/smp.h"
#include "mad/wire/switch_info.h"

namespace ibsm {
namespace {

// One discovery run: the callbacks of its SMPs share this state.
class Walker {
 public:
  Walker(MadDispatcher& d, const DiscoveryOptions& o, LogSink& log) : d_(d), options_(o), log_(log) {}

  DiscoveryResult run() {
    probe(DrPath{}, PortRef{});
    return finish();
  }

  // Outward from a fabric already known: each probe's node is new, or a
  // known node on a new link; only what is new is read.
  DiscoveryResult run_from(DiscoveryResult seed, const std::vector<DiscoveryProbe>& probes) {
    r_ = std::move(seed);
    ca_ports_seen_.assign(r_.fabric.node_count(), 0);
    for (uint32_t i = 0; i < r_.fabric.node_count(); ++i)
      for (size_t p = 1; p < 64 && i < r_.port_info.size() && p < r_.port_info[i].size(); ++p)
        if (r_.port_info[i][p].port_state != PortState::no_change) ca_ports_seen_[i] |= uint64_t{1} << p;
    for (const DiscoveryProbe& p : probes) probe(p.path, p.via);
    return finish();
  }

 private:
  DiscoveryResult finish() {
    d_.run_until_idle();
    // Each answer sends on from the backlog, so the dispatcher is idle only
    // once the backlog is empty; checked all the same, as idle must mean done.
    while (!backlog_empty()) {
      send_backlog();
      d_.run_until_idle();
    }
    r_.smps_sent = d_.stats().sent - sent_before_;
    r_.smps_timed_out = d_.stats().timeouts - timeouts_before_;
    return std::move(r_);
  }

 public:
  void start_counting() {
    sent_before_ = d_.stats().sent;
    timeouts_before_ = d_.stats().timeouts;
  }

 private:
  using Handler = std::function<void(std::span<const uint8_t> data)>;

  // Sends a Get along `path` with `m_key` (by default the path's key);
  // calls `on_data` with the SMP data of a good answer, records a problem
  // otherwise, or, when there is no answer at all and `on_silent` is set,
  // calls that instead.
  void get(const DrPath& path, uint16_t attr, uint32_t mod, PortRef via, Handler on_data,
           std::optional<uint64_t> m_key = std::nullopt, std::function<void()> on_silent = {}) {
    const uint64_t key = m_key ? *m_key : r_.m_keys.key(path).value_or(0);
    if (!backlog_empty() || d_.queued() >= kQueuedGets) {
      backlog_.push_back({path, attr, mod, via, std::move(on_data), key, std::move(on_silent)});
      return;
    }
    submit(path, attr, mod, via, std::move(on_data), key, std::move(on_silent));
  }

  // Gets wait in the backlog, not in the dispatcher's queue, once
  // kQueuedGets are queued there, and go on in the order they were asked
  // as answers come in: the walk asks for a whole breadth of the fabric at
  // once (some 100k Gets at 49k LIDs), and a Get queued in the dispatcher
  // holds its built MAD in a slot of some 400 bytes (52 MB at 49k LIDs,
  // and twice that while the slots grew). The dispatcher sends in the
  // same order either way.
  static constexpr size_t kQueuedGets = 4096;
  struct DeferredGet {
    DrPath path;
    uint16_t attr;
    uint32_t mod;
    PortRef via;
    Handler on_data;
    uint64_t m_key;
    std::function<void()> on_silent;
  };

  void send_backlog() {
    while (backlog_next_ < backlog_.size() && d_.queued() < kQueuedGets) {
      DeferredGet& g = backlog_[backlog_next_++];
      submit(g.path, g.attr, g.mod, g.via, std::move(g.on_data), g.m_key, std::move(g.on_silent));
    }
    if (backlog_next_ == backlog_.size()) {  // all sent: the room is kept for the next breadth
      backlog_.clear();
      backlog_next_ = 0;
    }
  }
  bool backlog_empty() const { return backlog_next_ == backlog_.size(); }

  void submit(const DrPath& path, uint16_t attr, uint32_t mod, PortRef via, Handler on_data, uint64_t m_key,
              std::function<void()> on_silent) {
    MadPacket p;
    p.data = wire::build_dr_smp(wire::method::get, attr, mod, 0, path, {}, m_key);
    d_.submit(p, [this, path, attr, via, on_data = std::move(on_data), on_silent = std::move(on_silent)](Result<MadPacket> r) {
      send_backlog();  // first: what was asked before this answer goes before what it asks
      if (!r.ok()) {
        if (on_silent) return on_silent();
        problem(path, via, fmt::format("no answer to {} ({})", attr_name(attr), r.status().message()));
        return;
      }
      auto smp = wire::parse_smp(r->data);
      if (!smp.ok()) {
        problem(path, via, fmt::format("unreadable {} response: {}", attr_name(attr), smp.status().message()));
        return;
      }
      if (smp->status() != 0) {
        problem(path, via, fmt::format("{} answered with status 0x{:04x}", attr_name(attr), smp->status()));
        return;
      }
      on_data(smp->data());
    });
  }

  static const char* attr_name(uint16_t attr) {
    switch (attr) {
      case wire::smp_attr::node_info: return "NodeInfo";
      case wire::smp_attr::node_description: return "NodeDescription";
      case wire::smp_attr::port_info: return "PortInfo";
      case wire::smp_attr::switch_info: return "SwitchInfo";
      default: return "SMP";
    }
  }

  void problem(const DrPath& path, PortRef via, std::string what, bool m_key_refused = false) {
    DiscoveryProblem p;
    p.m_key_refused = m_key_refused;
    p.path = path;
    if (via.node.valid()) {
      p.via_node = r_.fabric.node(via.node).node_guid;
      p.via_port = via.port;
    }
    p.what = std::move(what);
    log(log_, LogLevel::warn, Subsystem::discovery, "dr path {}{}: {}", path,
        via.node.valid() ? fmt::format(" (port {} of {})", p.via_port, p.via_node) : std::string(), p.what);
    r_.problems.push_back(std::move(p));
  }

  // NodeInfo on `path`, reached through `via` (invalid for the local node),
  // with the `candidate`th M_Key to try; after no answer, the next one.
  void probe(const DrPath& path, PortRef via, size_t candidate = 0) {
    const std::vector<uint64_t>& keys = options_.m_key_candidates;
    const uint64_t key = candidate < keys.size() ? keys[candidate] : 0;
    std::function<void()> try_next;
    if (candidate + 1 < keys.size()) try_next = [this, path, via, candidate] { probe(path, via, candidate + 1); };
    get(path, wire::smp_attr::node_info, 0, via, [this, path, via, key](std::span<const uint8_t> data) {
      auto ni = wire::decode_node_info(data);
      if (!ni.ok()) {
        problem(path, via, "bad NodeInfo: " + ni.status().message());
        return;
      }
      // From now on the path's SMPs carry the key the port is known to
      // hold, else the one it answered.
      uint64_t use = key;
      if (options_.known_m_keys) {
        auto known = options_.known_m_keys->find(ni->port_guid);
        if (known != options_.known_m_keys->end()) use = known->second;
      }
      r_.m_keys.set(path, use);
      on_node_info(path, via, *ni);
    }, key, std::move(try_next));
  }

  // PortInfo of the port that guards `path` (a switch's port 0, the CA port
  // the path enters) tells whether its M_Key is the one sent (IBA 14.2.4.1):
  // level 0 shows the key whatever was sent (learned), level 1 hides it
  // from a wrong key (M_Key reads 0: refused), level 2 and 3 would not have
  // answered. A key that reads 0 at level 0 means the port has none. (A
  // port with M_Key 0 and protection bits set reads the same as one that
  // hides its key: it is taken as refused, and reported.)
  void check_m_key(const DrPath& path, PortRef via, const wire::PortInfo& pi) {
    const uint64_t sent = r_.m_keys.key(path).value_or(0);
    if (pi.m_key == sent) return;
    if (pi.m_key_protect_bits == 0) {
      r_.m_keys.set(path, pi.m_key);
      return;
    }
    if (pi.m_key != 0) return;  // cannot be: a matching key reads back itself
    r_.m_keys.refuse(path);
    problem(path, via,
            fmt::format("m_key refused: the port hides its M_Key from 0x{:016x} (protection level {})", sent,
                        pi.m_key_protect_bits),
            true);
  }

  void on_node_info(const DrPath& path, PortRef via, const wire::NodeInfo& ni) {
    Fabric& f = r_.fabric;
    uint8_t entry = ni.local_port_num;
    if (auto known = f.find_by_node_guid(ni.node_guid)) {
      // Another way to a node we have: only the link is new.
      Node& n = f.node(*known);
      if (!n.is_switch() && entry <= n.num_ports) n.port(entry).guid = ni.port_guid;
      if (via.node.valid()) link(via, PortRef{*known, entry}, path);
      if (!n.is_switch() && entry >= 1 && entry <= n.num_ports && !ca_port_seen(*known, entry))
        query_ca_port(*known, path, entry, via);
      return;
    }
    Node n;
    n.type = ni.node_type;
    n.num_ports = ni.num_ports;
    n.node_guid = ni.node_guid;
    n.system_guid = ni.system_image_guid;
    n.vendor_id = ni.vendor_id;
    n.device_id = ni.device_id;
    n.revision = ni.revision;
    n.partition_cap = ni.partition_cap;
    n.ports.resize(size_t{ni.num_ports} + 1);
    if (n.is_switch()) {
      for (auto& p : n.ports) p.guid = ni.port_guid;
    } else if (entry <= ni.num_ports) {
      n.ports[entry].guid = ni.port_guid;
    }
    auto added = f.add_node(std::move(n));
    if (!added.ok()) {
      problem(path, via, "cannot add node: " + added.status().message());
      return;
    }
    NodeIndex idx = *added;
    r_.paths.resize(f.node_count());
    r_.paths[idx.value] = path;
    r_.switch_info.resize(f.node_count());
    if (options_.keep_port_info) {
      r_.port_info.resize(f.node_count());
      r_.port_info[idx.value].resize(size_t{ni.num_ports} + 1);
    }
    ca_ports_seen_.resize(f.node_count());
    if (!via.node.valid()) {
      r_.local_node = idx;
      r_.local_port = entry;
    } else {
      link(via, PortRef{idx, entry}, path);
    }

    get(path, wire::smp_attr::node_description, 0, via, [this, idx](std::span<const uint8_t> data) {
      auto nd = wire::decode_node_description(data);
      if (nd.ok()) r_.fabric.node(idx).description = nd->text;
    });
    if (ni.node_type == NodeType::switch_) {
      if (options_.query_switch_info) {
        get(path, wire::smp_attr::switch_info, 0, via, [this, idx](std::span<const uint8_t> data) {
          auto si = wire::decode_switch_info(data);
          if (!si.ok()) return;
          r_.switch_info[idx.value] = *si;
          r_.fabric.node(idx).enhanced_port0 = si->enhanced_port0;
        });
      }
      for (unsigned p = 0; p <= ni.num_ports; ++p) query_switch_port(idx, path, static_cast<uint8_t>(p), entry, via);
    } else if (entry >= 1 && entry <= ni.num_ports) {
      query_ca_port(idx, path, entry, via);
    }
  }

  bool ca_port_seen(NodeIndex n, uint8_t port) const {
    return n.value < ca_ports_seen_.size() && (ca_ports_seen_[n.value] >> port & 1) != 0;
  }

  void query_ca_port(NodeIndex idx, const DrPath& path, uint8_t port, PortRef via) {
    if (port < 64) ca_ports_seen_[idx.value] |= uint64_t{1} << port;
    get(path, wire::smp_attr::port_info, port, via, [this, idx, path, port](std::span<const uint8_t> data) {
      auto pi = wire::decode_port_info(data);
      if (!pi.ok()) return;
      store_port(idx, port, *pi);
      check_m_key(path, PortRef{idx, port}, *pi);
      // The local CA's port leads out into the fabric.
      if (path.hops() == 0 && pi->port_state != PortState::down && !r_.fabric.node(idx).port(port).connected())
        probe(path.extended(port), PortRef{idx, port});
    });
  }

  void query_switch_port(NodeIndex idx, const DrPath& path, uint8_t port, uint8_t entry, PortRef via) {
    get(path, wire::smp_attr::port_info, port, via, [this, idx, path, port, entry](std::span<const uint8_t> data) {
      auto pi = wire::decode_port_info(data);
      if (!pi.ok()) return;
      store_port(idx, port, *pi);
      if (port == 0) check_m_key(path, PortRef{idx, 0}, *pi);
      if (port == 0 || port == entry || pi->port_state == PortState::down) return;
      if (r_.fabric.node(idx).port(port).connected()) return;  // the far side found us first
      if (path.full()) {
        problem(path, PortRef{idx, port}, "fabric deeper than 63 hops: not followed");
        return;
      }
      probe(path.extended(port), PortRef{idx, port});
    });
  }

  void store_port(NodeIndex idx, uint8_t port, const wire::PortInfo& pi) {
    Node& n = r_.fabric.node(idx);
    if (port > n.num_ports) return;
    if (options_.keep_port_info) r_.port_info[idx.value][port] = pi;
    store_port_info(n, port, pi);
  }

  void link(PortRef a, PortRef b, const DrPath& path) {
    Fabric& f = r_.fabric;
    const Port& pa = f.node(a.node).port(a.port);
    if (pa.connected() && pa.remote_node == b.node && pa.remote_port == b.port) return;  // known already
    Status s = f.connect(a, b);
    if (!s.ok()) problem(path, a, "inconsistent link: " + s.message());
  }

  MadDispatcher& d_;
  // A FIFO: Gets from backlog_next_ on wait (a deque allocated a block
  // per three of them).
  std::vector<DeferredGet> backlog_;
  size_t backlog_next_ = 0;
  DiscoveryOptions options_;
  LogSink& log_;
  DiscoveryResult r_;
  std::vector<uint64_t> ca_ports_seen_;  // bit per CA port whose PortInfo was asked for
  uint64_t sent_before_ = 0;
  uint64_t timeouts_before_ = 0;
};

}  // namespace

DiscoveryResult discover_fabric(MadDispatcher& dispatcher, const DiscoveryOptions& options, LogSink& log) {
  Walker w(dispatcher, options, log);
  w.start_counting();
  return w.run();
}

DiscoveryResult discover_from(MadDispatcher& dispatcher, DiscoveryResult known,
                              const std::vector<DiscoveryProbe>& probes, const DiscoveryOptions& options,
                              LogSink& log) {
  Walker w(dispatcher, options, log);
  w.start_counting();
  return w.run_from(std::move(known), probes);
}

std::optional<DrPath> path_into(const DiscoveryResult& d, NodeIndex n, uint8_t port) {
  const Fabric& f = d.fabric;
  const DrPath& node_path = d.paths[n.value];
  if (f.node(n).is_switch()) return node_path;
  if (n == d.local_node && port == d.local_port) return node_path;
  const Port& p = f.node(n).port(port);
  if (!p.connected()) return std::nullopt;
  const Node& remote = f.node(p.remote_node);
  bool via_remote = remote.is_switch() || (p.remote_node == d.local_node && p.remote_port == d.local_port);
  if (!via_remote) return std::nullopt;
  const DrPath& remote_path = d.paths[p.remote_node.value];
  if (remote_path.full()) return std::nullopt;
  return remote_path.extended(p.remote_port);
}

void store_port_info(Node& node, uint8_t port, const wire::PortInfo& pi) {
  Port& p = node.port(port);
  p.state = pi.port_state;
  p.phys_state = pi.port_phys_state;
  p.width_active = pi.link_width_active;
  p.speed_active = pi.link_speed_active;
  p.speed_ext_active = pi.link_speed_ext_active;
  p.vl_cap = pi.vl_cap;
  if (!node.is_switch()) {
    p.base_lid = pi.lid;
    p.lmc = pi.lmc;
  } else if (port == 0) {
    // A switch's LID lives in port 0's PortInfo and covers all its ports
    // (IBA 14.2.5.6); its external ports' LID fields mean nothing.
    for (auto& q : node.ports) {
      q.base_lid = pi.lid;
      q.lmc = pi.lmc;
    }
  }
}

}  // namespace ibsm
