#include "sm/status_page/status_page.h"

#include <algorithm>

#include <fmt/format.h>

#include "sm/status_page/html_escape.h"
#include "sm/status_page/load_colour.h"

namespace ibsm::status {

namespace {

constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:1em 2em;color:#222;background:#fff}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.4em;border-bottom:1px solid #ccc}
table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left;border-bottom:1px solid #eee}
.ok{color:#1a7f37}.bad{color:#c00;font-weight:bold}.note{color:#555;font-style:italic}.kind{font-family:monospace;color:#555}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:28px;height:10px;margin-right:4px;vertical-align:middle}
#fabric text{font-size:11px;text-anchor:middle;fill:#111}#fabric text.count{font-size:10px}
.picture{border:1px solid #ddd;padding:4px}#fabric{max-width:100%;height:auto}
)";

std::string seconds(Micros us) { return fmt::format("{:.1f} s", static_cast<double>(us) / 1e6); }

void sm_section(std::string& out, const StatusPageInput& in) {
  out += "<section id=\"sm\"><h2>Subnet manager</h2><table>\n";
  if (in.sm.state.empty()) {
    out += "<tr><th>state</th><td>no SM: rendered offline</td></tr>\n";
  } else {
    out += fmt::format("<tr><th>state</th><td>{}</td></tr>\n", html_escape(in.sm.state));
    out += fmt::format("<tr><th>priority</th><td>{}</td></tr>\n", in.sm.priority);
    out += fmt::format("<tr><th>port GUID</th><td>{}</td></tr>\n", in.sm.port_guid);
    out += fmt::format("<tr><th>LID</th><td>{}</td></tr>\n", in.sm.lid.value);
    out += fmt::format("<tr><th>master</th><td>{}</td></tr>\n",
                       in.sm.master.empty() ? std::string("this SM") : html_escape(in.sm.master));
  }
  if (in.subnet && in.subnet->sweep == 0) {
    out += "<tr><th>subnet</th><td>from files, not swept</td></tr>\n";
  } else if (in.subnet) {
    out += fmt::format("<tr><th>subnet</th><td>heavy sweep {}, SM LID {}</td></tr>\n", in.subnet->sweep,
                       in.subnet->sm_lid.value);
  } else {
    out += "<tr><th>subnet</th><td>not configured yet</td></tr>\n";
  }
  out += "</table></section>\n";
}

void routing_section(std::string& out, const StatusPageInput& in) {
  out += "<section id=\"routing\"><h2>Routing</h2>\n";
  out += fmt::format("<p>engine: {}</p>\n", in.routing_engine.empty() ? std::string("none yet")
                                                                      : html_escape(in.routing_engine));
  if (!in.routing_check.empty()) {
    out += fmt::format("<p class=\"check {}\">{}</p>\n", in.routing_check_ok ? "ok" : "bad",
                       html_escape(in.routing_check));
  }
  out += "</section>\n";
}

void sweeps_section(std::string& out, const StatusPageInput& in, const StatusPageOptions& options) {
  out += "<section id=\"sweeps\"><h2>Last sweeps</h2>\n";
  if (in.sweeps.empty()) {
    out += "<p>none yet</p></section>\n";
    return;
  }
  out += "<table><tr><th>kind</th><th>ended</th><th>duration</th><th>MADs</th><th>subnet</th></tr>\n";
  const size_t shown = std::min(options.max_sweeps, in.sweeps.size());
  for (size_t i = in.sweeps.size(); i-- > in.sweeps.size() - shown;) {
    const SweepRecord& s = in.sweeps[i];
    out += fmt::format("<tr><td>{}</td><td>{} ago</td><td>{:.1f} ms</td><td>{}</td><td>{}</td></tr>\n",
                       html_escape(s.kind), seconds(std::max<Micros>(in.now - (s.started + s.duration), 0)),
                       static_cast<double>(s.duration) / 1e3, s.mads, s.subnet_up ? "up" : "<span class=\"bad\">not up</span>");
  }
  out += "</table></section>\n";
}

void problems_section(std::string& out, const StatusPageInput& in, const StatusPageOptions& options) {
  out += "<section id=\"problems\"><h2>Problems of the last sweep</h2>\n";
  if (!in.last_error.empty()) out += fmt::format("<p class=\"bad\">{}</p>\n", html_escape(in.last_error));
  const size_t total = in.problems.size() + in.check_problems.size();
  if (total == 0) {
    if (in.last_error.empty()) out += "<p class=\"ok\">none</p>\n";
  } else {
    out += "<ul>\n";
    size_t shown = 0;
    for (const SweepProblem& p : in.problems) {
      if (shown++ == options.max_problems) break;
      out += fmt::format("<li><span class=\"kind\">{}</span> {}</li>\n", sweep_problem_kind_name(p.kind),
                         html_escape(p.text));
    }
    for (const std::string& p : in.check_problems) {
      if (shown++ >= options.max_problems) break;
      out += fmt::format("<li><span class=\"kind\">check</span> {}</li>\n", html_escape(p));
    }
    out += "</ul>\n";
    if (total > options.max_problems) {
      out += fmt::format("<p class=\"note\">and {} more</p>\n", total - options.max_problems);
    }
  }
  out += "</section>\n";
}

void legend(std::string& out, uint64_t max) {
  out += "<p class=\"legend\">routes per direction: ";
  out += fmt::format("<span><i style=\"background:{}\"></i>0</span>", kLoadColours[0]);
  if (max > 0) {
    // The counts of step k (load_step): above (k-1)/5 of the maximum, up to k/5 of it.
    for (uint64_t step = 1; step <= 5; ++step) {
      const uint64_t low = (step - 1) * max / 5 + 1;
      const uint64_t high = step == 5 ? max : step * max / 5;
      if (low > high) continue;  // a maximum below 5 leaves steps empty
      out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", kLoadColours[step],
                         low == high ? fmt::format("{}", low) : fmt::format("{}\u2013{}", low, high));
    }
  }
  out += fmt::format("<span><i style=\"background:{}\"></i>errors</span></p>\n", kErrorColour);
}

void loaded_links(std::string& out, const StatusPageInput& in, const StatusPageOptions& options) {
  if (in.port_routes.empty() || !in.subnet || options.loaded_links == 0) return;
  const Fabric& f = in.subnet->fabric;
  // Between switches: a CA's own cable carries every route to it, whatever the routing.
  std::vector<routing::PortRoutes> top;
  for (const routing::PortRoutes& r : in.port_routes)
    if (r.to_switch) top.push_back(r);
  const size_t n = std::min(options.loaded_links, top.size());
  std::partial_sort(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(n), top.end(),
                    [](const auto& a, const auto& b) { return a.routes > b.routes; });
  if (n == 0) return;
  out += "<h3>Most loaded links between switches</h3>\n<table><tr><th>from</th><th>port</th><th>to</th><th>port</th>"
         "<th>routes</th></tr>\n";
  for (size_t i = 0; i < n; ++i) {
    const PortRef p = top[i].port;
    if (!p.node.valid() || p.node.value >= f.node_count() || p.port > f.node(p.node).num_ports) continue;
    const Port& port = f.node(p.node).port(p.port);
    if (!port.connected()) continue;
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       html_escape(node_label(f.node(p.node))), p.port, html_escape(node_label(f.node(port.remote_node))),
                       port.remote_port, top[i].routes);
  }
  out += "</table>\n";
}

void fabric_section(std::string& out, const StatusPageInput& in, const StatusPageOptions& options) {
  out += "<section id=\"fabric-section\"><h2>Fabric</h2>\n";
  if (!in.subnet) {
    out += "<p>no subnet yet</p></section>\n";
    return;
  }
  const Fabric& f = in.subnet->fabric;
  const Picture picture = draw_fabric(f, in.port_routes, in.port_errors, options.picture);
  out += fmt::format("<p>{} switches, {} CAs, {} cables</p>\n", f.switch_count(), f.ca_count(), f.links().size());
  if (in.port_routes.empty()) out += "<p class=\"note\">no routed load known: every link is drawn grey</p>\n";
  if (!picture.note.empty()) out += fmt::format("<p class=\"note\">{}</p>\n", html_escape(picture.note));
  legend(out, picture.max_routes);
  out += "<div class=\"picture\">\n" + picture.svg + "</div>\n";
  loaded_links(out, in, options);
  out += "</section>\n";
}

}  // namespace

std::string render_status_page(const StatusPageInput& input, const StatusPageOptions& options) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  out += fmt::format("<title>{} status</title>\n<style>{}</style></head>\n<body>\n", html_escape(input.title), kStyle);
  out += fmt::format("<h1>{} status{}</h1>\n", html_escape(input.title),
                     input.sm.state.empty() ? std::string() : " \u2014 " + html_escape(input.sm.state));
  sm_section(out, input);
  routing_section(out, input);
  sweeps_section(out, input, options);
  problems_section(out, input, options);
  fabric_section(out, input, options);
  out += "</body></html>\n";
  return out;
}

}  // namespace ibsm::status
