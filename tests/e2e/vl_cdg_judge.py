#!/usr/bin/env python3
"""A per-VL deadlock check that shares no code with ibsm: the judge of
e2e.routing-sl.

    vl_cdg_judge.py IBNETDISCOVER DUMP_LFTS SLS [SL2VL]

reads the fabric as ibnetdiscover prints it, the switches' tables as
dump_fts prints them, and the SL of each CA-to-CA path ("SLID DLID SL" lines,
as the test writes them from `saquery -p`; a pair not listed is SL 0).
Without SL2VL, SL i travels on VL i. With it (the output of `smpquery sl2vl
LID OUTPORT` for every switch LID and output port, blocks headed "# SL2VL
table: Lid N", rows "ports: in I, out O: | v| v|...|"), a packet leaving a
switch on port O after coming in on port I takes the VL row (I, O) maps its
SL to (IBA 7.6.6): the VL may change at every hop; a port pair with no row
is an error. Every CA port's packets to every other CA port's LID are
followed through the tables; a packet arriving on the channel (cable
direction, VL) c_in and sent on c_out makes c_in depend on c_out. The CA's
own cable into its switch and the last cable into the destination CA take
part in no cycle and are left out.

Prints "judge: pairs N delivered N; vls 0,1; acyclic" (or "cycle on vl V:
..."), exit 0 when every pair is delivered and every VL is acyclic, 1
otherwise, 2 for unreadable input.
"""
import re
import sys


def parse_ibnetdiscover(path):
    """nodes: id -> {'type', 'guid', 'ports': {port: (remote id, remote port)}, 'lids': {port: lid}}"""
    nodes = {}
    current = None
    head = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([^"]+)"(.*)$')
    link = re.compile(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([^"]+)"\[(\d+)\](.*)$')
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            m = head.match(line)
            if m:
                kind, _, ident, rest = m.groups()
                current = {'type': kind, 'guid': int(ident.split('-', 1)[1], 16), 'ports': {}, 'lids': {}}
                nodes[ident] = current
                lid = re.search(r'\blid (\d+)', rest)
                if kind == 'Switch' and lid:
                    current['lids'][0] = int(lid.group(1))
                continue
            m = link.match(line.strip())
            if m and current is not None:
                port, remote, remote_port, rest = m.groups()
                current['ports'][int(port)] = (remote, int(remote_port))
                if current['type'] != 'Switch':
                    lid = re.search(r'#\s*lid (\d+)', rest)
                    if lid:
                        current['lids'][int(port)] = int(lid.group(1))
            elif not line.strip():
                current = None  # a blank line ends a node's block
    return nodes


def parse_dump_fts(path):
    """guid -> {lid: port}"""
    tables = {}
    table = None
    head = re.compile(r'^Unicast lids .* guid (0x[0-9a-fA-F]+)')
    entry = re.compile(r'^(0x[0-9a-fA-F]+)\s+(\d+)\b')
    with open(path) as f:
        for line in f:
            m = head.match(line)
            if m:
                table = tables.setdefault(int(m.group(1), 16), {})
                continue
            m = entry.match(line.strip())
            if m and table is not None:
                table[int(m.group(1), 16)] = int(m.group(2))
    return tables


def parse_sls(path):
    sls = {}
    with open(path) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if len(words) == 3:
                sls[(int(words[0], 0), int(words[1], 0))] = int(words[2], 0)
    return sls


def parse_sl2vl(path, owner_of_lid):
    """(node id, in port, out port) -> [VL of SL 0..15], from smpquery sl2vl output."""
    tables = {}
    owner = None
    head = re.compile(r'^#\s*SL2VL table: Lid (\d+)')
    row = re.compile(r'^ports: in\s+(\d+), out\s+(\d+):\s*((?:\|\s*\d+)+)\|\s*$')
    with open(path) as f:
        for number, line in enumerate(f, 1):
            m = head.match(line)
            if m:
                owner = owner_of_lid.get(int(m.group(1)))
                if owner is None:
                    raise ValueError('%s:%d: no node has lid %s' % (path, number, m.group(1)))
                continue
            m = row.match(line.strip())
            if m and owner is not None:
                vls = [int(v) for v in m.group(3).split('|')[1:]]
                if len(vls) != 16:
                    raise ValueError('%s:%d: %d VLs, not 16' % (path, number, len(vls)))
                tables[(owner, int(m.group(1)), int(m.group(2)))] = vls
    return tables


def find_cycle(deps):
    """deps: channel -> set of channels. Returns a cycle (list) or None."""
    color = {}
    for root in deps:
        if color.get(root):
            continue
        stack = [(root, iter(deps.get(root, ())))]
        color[root] = 1
        path = [root]
        while stack:
            node, it = stack[-1]
            advanced = False
            for nxt in it:
                c = color.get(nxt, 0)
                if c == 1:
                    return path[path.index(nxt):]
                if c == 0:
                    color[nxt] = 1
                    stack.append((nxt, iter(deps.get(nxt, ()))))
                    path.append(nxt)
                    advanced = True
                    break
            if not advanced:
                color[node] = 2
                stack.pop()
                path.pop()
    return None


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    nodes = parse_ibnetdiscover(argv[1])
    tables = parse_dump_fts(argv[2])
    sls = parse_sls(argv[3])
    sl2vl = None
    if len(argv) == 5:
        owner_of_lid = {lid: ident for ident, n in nodes.items() if n['type'] == 'Switch'
                        for lid in n['lids'].values()}
        try:
            sl2vl = parse_sl2vl(argv[4], owner_of_lid)
        except ValueError as e:
            print('judge: %s' % e, file=sys.stderr)
            return 2
        if not sl2vl:
            print('judge: no SL2VL rows in %s' % argv[4], file=sys.stderr)
            return 2
    if not nodes or not tables:
        print('judge: no fabric or no tables read', file=sys.stderr)
        return 2
    cas = [(ident, port, lid) for ident, n in nodes.items() if n['type'] != 'Switch'
           for port, lid in n['lids'].items() if port in n['ports']]
    deps = {}  # channel -> set of channels; a channel is (switch id, out-port, vl)
    used = set()
    pairs = delivered = 0
    for src, sport, slid in cas:
        for dst, dport, dlid in cas:
            if (src, sport) == (dst, dport):
                continue
            pairs += 1
            sl = sls.get((slid, dlid), 0)
            at, in_port = nodes[src]['ports'][sport]
            previous = None
            for _ in range(len(nodes)):
                node = nodes[at]
                if node['type'] != 'Switch':
                    break
                out = tables.get(node['guid'], {}).get(dlid)
                if out is None or out == 0 or out == 255 or out not in node['ports']:
                    break
                remote, rport = node['ports'][out]
                if nodes[remote]['type'] != 'Switch':
                    if (remote, rport) == (dst, dport):
                        delivered += 1
                    break
                if sl2vl is None:
                    vl = sl
                elif (at, in_port, out) in sl2vl:
                    vl = sl2vl[(at, in_port, out)][sl]
                else:
                    print('judge: no SL2VL row for %s in %d out %d' % (at, in_port, out), file=sys.stderr)
                    return 2
                channel = (at, out, vl)
                if previous is not None:
                    deps.setdefault(previous, set()).add(channel)
                    used.update((previous[2], vl))  # the VLs that carry a dependency
                previous = channel
                at, in_port = remote, rport
    vls = sorted(used)
    verdict = 'acyclic'
    cycle = find_cycle(deps)
    if cycle:
        verdict = 'cycle on vl %s: %s' % (','.join(str(v) for v in sorted({c[2] for c in cycle})),
                                           ' -> '.join('%s port %d vl %d' % c for c in cycle))
    print('judge: pairs %d delivered %d; vls %s; %s' % (pairs, delivered, ','.join(map(str, vls)) or '-', verdict))
    return 0 if delivered == pairs and verdict == 'acyclic' else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
