#!/usr/bin/env python3
# Judge for bench/multicast_vs_opensm.sh: does some MLID's tree, as the
# switches hold it (dump_fts -M output), deliver from every member to every
# other member? The cabling comes from the ibnetdiscover-format netfile ibsim
# runs; the members are port GUIDs, one per line.
# Usage: mc_reach.py NETFILE DUMP MEMBERS
# Prints "ok MLID members" and exits 0, or "no: why" and exits 1.
import re
import sys


def read_netfile(path):
    """(switch guid, port) -> (peer name, peer port); CA port guid -> (switch guid, port)."""
    links, switch_of_name, ca_port = {}, {}, {}
    sw = None
    pending = []  # (switch guid, port, peer name, peer port, peer guid)
    for line in open(path):
        m = re.match(r"switchguid=(0x[0-9a-fA-F]+)", line)
        if m:
            sw = int(m.group(1), 16)
            continue
        m = re.match(r'Switch\s+\d+\s+"([^"]+)"', line)
        if m and sw is not None:
            switch_of_name[m.group(1)] = sw
            continue
        if line.startswith(("Ca", "caguid", "Hca")):
            sw = None
            continue
        m = re.match(r'\[(\d+)\]\s+"([^"]+)"\[(\d+)\](?:\(([0-9a-fA-F]+)\))?', line)
        if m and sw is not None:
            pending.append((sw, int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)))
    for sw, port, peer, pport, guid in pending:
        links[(sw, port)] = (peer, pport)
        if guid is not None and peer not in switch_of_name:
            ca_port[int(guid, 16)] = (sw, port)
    return links, switch_of_name, ca_port


def read_dump(path):
    """mlid -> switch guid -> set of ports, from dump_fts -M."""
    tables, guid, start = {}, None, None
    for line in open(path):
        m = re.search(r"guid (0x[0-9a-f]+)", line)
        if line.startswith("Multicast mlids") and m:
            guid, start = int(m.group(1), 16), None
            continue
        if "Ports:" in line:
            start = line.index("Ports:") + len("Ports: ")
            continue
        m = re.match(r"(0x[0-9a-f]+)\s", line)
        if m and guid is not None and start is not None:
            ports = {(i - start) // 2 for i, c in enumerate(line.rstrip("\n")) if c == "x" and i >= start}
            tables.setdefault(int(m.group(1), 16), {})[guid] = ports
    return tables


def flood(table, links, switch_of_name, ca_port, name_of_port, source):
    """Port GUIDs of the CAs a packet from `source` reaches; None on a loop or duplicate."""
    sw, port = ca_port[source]
    reached, seen, todo = set(), set(), [(sw, port)]
    while todo:
        sw, came_in = todo.pop()
        if sw in seen:
            return None
        seen.add(sw)
        for p in table.get(sw, ()):
            if p == came_in or p == 0:
                continue
            if (sw, p) in name_of_port:
                reached.add(name_of_port[(sw, p)])
                continue
            peer = links.get((sw, p))
            if peer and peer[0] in switch_of_name:
                todo.append((switch_of_name[peer[0]], peer[1]))
    return reached


def main():
    links, switch_of_name, ca_port = read_netfile(sys.argv[1])
    tables = read_dump(sys.argv[2])
    members = [int(x, 16) for x in open(sys.argv[3]).read().split()]
    if not tables:
        print("no: no MLID has an entry")
        return 1
    name_of_port = {v: k for k, v in ca_port.items()}
    why = "no MLID"
    for mlid, table in sorted(tables.items()):
        ok = True
        for m in members:
            got = flood(table, links, switch_of_name, ca_port, name_of_port, m)
            if got is None:
                why, ok = f"{mlid:#06x}: a loop or a duplicate from {m:#x}", False
                break
            missing = set(members) - got - {m}
            if missing:
                why, ok = f"{mlid:#06x}: {len(missing)} members missed from {m:#x}", False
                break
        if ok:
            print(f"ok {mlid:#06x} {len(members)}")
            return 0
    print(f"no: {why}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
